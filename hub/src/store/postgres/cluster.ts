// The SQL of cluster coordination (used by hub/src/cluster/): node heartbeats, delivery claims with
// an expiry (taken with FOR UPDATE SKIP LOCKED so concurrent claimers never block or double-claim),
// the leader's session advisory lock, and the cluster-wide queue depth. Expiry uses the database's
// clock, so processes on machines with skewed clocks still agree on who is dead.
import pg from 'pg';
import type { Subscription } from '../repository.js';
import { clientConfig } from './connection.js';
import { toSubscription } from '../rows.js';

const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';
/** Key of the session advisory lock held by the process that runs the once-per-cluster jobs. */
const LEADER_LOCK = 72_640_002;

export interface ClaimedSubscription {
  readonly subscription: Subscription;
  /** The topic's last seq when claimed, so the new owner knows how far behind the cursor is. */
  readonly topicLastSeq: number;
}

export interface HeartbeatResult {
  /** Claims this node still holds (renewed); any other it thought it held was taken over. */
  readonly held: readonly number[];
  readonly liveNodes: number;
  readonly activeSubscriptions: number;
}

export class PgClusterStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly call: <T>(fn: () => Promise<T>) => Promise<T>,
    private readonly url: string,
  ) {}

  async registerNode(nodeId: string): Promise<void> {
    await this.call(() =>
      this.pool.query(
        `INSERT INTO hub_nodes (id, started_at, heartbeat_at) VALUES ($1, ${NOW_MS}, ${NOW_MS})
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at`,
        [nodeId],
      ),
    );
  }

  /** Renews this node and its claims, and reads what the fair share is computed from. */
  async heartbeat(nodeId: string, ttlMs: number): Promise<HeartbeatResult> {
    return this.call(async () => {
      const r = await this.pool.query<{ held: number[] | null; live: number; active: number }>(
        `
        WITH node AS (
          INSERT INTO hub_nodes (id, started_at, heartbeat_at) VALUES ($1, ${NOW_MS}, ${NOW_MS})
          ON CONFLICT (id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at RETURNING id),
        renewed AS (
          UPDATE delivery_claims SET expires_at = ${NOW_MS} + $2 WHERE node_id = $1 RETURNING subscription_id)
        SELECT (SELECT array_agg(subscription_id) FROM renewed) AS held,
               (SELECT COUNT(*) FROM hub_nodes WHERE heartbeat_at > ${NOW_MS} - $2 AND id <> $1)::int + 1 AS live,
               (SELECT COUNT(*) FROM subscriptions WHERE lease_expires_at > ${NOW_MS})::int AS active`,
        [nodeId, ttlMs],
      );
      const row = r.rows[0]!;
      return { held: row.held ?? [], liveNodes: row.live, activeSubscriptions: row.active };
    });
  }

  /** Claims up to `limit` subscriptions nobody holds (or whose holder's claim expired), oldest first. */
  async claim(
    nodeId: string,
    limit: number,
    ttlMs: number,
    onlyId?: number,
  ): Promise<ClaimedSubscription[]> {
    if (limit <= 0) return [];
    return this.call(async () => {
      const r = await this.pool.query<{ subscription_id: number }>(
        `
        WITH candidates AS (
          SELECT s.id FROM subscriptions s LEFT JOIN delivery_claims c ON c.subscription_id = s.id
           WHERE (c.subscription_id IS NULL OR c.expires_at < ${NOW_MS}) AND s.lease_expires_at > ${NOW_MS}
             AND ($4::int IS NULL OR s.id = $4)
           ORDER BY s.id LIMIT $3 FOR UPDATE OF s SKIP LOCKED)
        INSERT INTO delivery_claims (subscription_id, node_id, expires_at)
        SELECT id, $1, ${NOW_MS} + $2 FROM candidates
        ON CONFLICT (subscription_id) DO UPDATE SET node_id = EXCLUDED.node_id, expires_at = EXCLUDED.expires_at
          WHERE delivery_claims.expires_at < ${NOW_MS}
        RETURNING subscription_id`,
        [nodeId, ttlMs, limit, onlyId ?? null],
      );
      if (r.rows.length === 0) return [];
      return this.subscriptionsById(r.rows.map((x) => x.subscription_id));
    });
  }

  /** Fresh rows (cursor as last saved) for subscriptions this node holds or is about to drive. */
  async subscriptionsById(ids: readonly number[]): Promise<ClaimedSubscription[]> {
    return this.call(async () => {
      const r = await this.pool.query(
        `
        SELECT s.id, s.topic_id AS "topicId", s.topic_as_given AS "topicAsGiven", s.callback, s.secret, s.algorithm,
               s.lease_seconds AS "leaseSeconds", s.lease_expires_at AS "leaseExpiresAt", s.delivered_seq AS "deliveredSeq",
               s.next_attempt_at AS "nextAttemptAt", s.attempts, s.first_failed_at AS "firstFailedAt",
               s.last_status AS "lastStatus", s.last_error AS "lastError", s.created_at AS "createdAt", s.updated_at AS "updatedAt",
               t.url, t.last_seq AS "topicLastSeq"
          FROM subscriptions s JOIN topics t ON t.id = s.topic_id WHERE s.id = ANY($1::int[]) ORDER BY s.id`,
        [ids],
      );
      return r.rows.map(
        (row: Parameters<typeof toSubscription>[0] & { url: string; topicLastSeq: number }) => ({
          subscription: toSubscription(row, row.url),
          topicLastSeq: row.topicLastSeq,
        }),
      );
    });
  }

  /** Whether this node holds the claim (checked before acting on a change another process made). */
  async holds(nodeId: string, id: number): Promise<boolean> {
    return this.call(
      async () =>
        (
          await this.pool.query(
            `SELECT 1 FROM delivery_claims WHERE subscription_id = $1 AND node_id = $2 AND expires_at > ${NOW_MS}`,
            [id, nodeId],
          )
        ).rowCount === 1,
    );
  }

  async release(nodeId: string, ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.call(() =>
      this.pool.query(
        'DELETE FROM delivery_claims WHERE node_id = $1 AND subscription_id = ANY($2::int[])',
        [nodeId, ids],
      ),
    );
  }

  /** A clean stop: every claim released at once (the others take over without waiting for expiry). */
  async leave(nodeId: string): Promise<void> {
    await this.call(async () => {
      await this.pool.query('DELETE FROM delivery_claims WHERE node_id = $1', [nodeId]);
      await this.pool.query('DELETE FROM hub_nodes WHERE id = $1', [nodeId]);
    });
  }

  /** Notifications accepted but not yet done, summed over every subscription of the cluster. */
  async clusterQueueDepth(): Promise<number> {
    return this.call(
      async () =>
        (
          await this.pool.query<{ n: number }>(`
      SELECT COALESCE(SUM(GREATEST(t.last_seq - s.delivered_seq, 0)), 0)::bigint AS n
        FROM subscriptions s JOIN topics t ON t.id = s.topic_id`)
        ).rows[0]!.n,
    );
  }

  /** RT-6 checks once per topic per interval across the cluster: true for the one process that should check. */
  async claimTopicCheck(url: string, intervalMs: number): Promise<boolean> {
    return this.call(
      async () =>
        (
          await this.pool.query(
            `
      INSERT INTO topic_checks (url, checked_at) VALUES ($1, ${NOW_MS})
      ON CONFLICT (url) DO UPDATE SET checked_at = EXCLUDED.checked_at WHERE topic_checks.checked_at < ${NOW_MS} - $2
      RETURNING url`,
            [url, intervalMs],
          )
        ).rowCount === 1,
    );
  }

  /** A dedicated connection that holds the leader lock while it lives; `onLost` when it dies. */
  leaderLock(): LeaderLock {
    return new LeaderLock(this.url);
  }
}

export class LeaderLock {
  private client: pg.Client | undefined;
  private lostHandler: (() => void) | undefined;

  constructor(private readonly url: string) {}

  onLost(handler: () => void): void {
    this.lostHandler = handler;
  }

  /** True when this process is (now) the leader; never blocks on another holder. */
  async tryAcquire(): Promise<boolean> {
    if (this.client) return true;
    const client = new pg.Client(clientConfig(this.url));
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      client.end().catch(() => undefined);
      this.lostHandler?.();
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
      const r = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [
        LEADER_LOCK,
      ]);
      if (!r.rows[0]!.ok) {
        client.removeAllListeners('end');
        await client.end().catch(() => undefined);
        return false;
      }
    } catch {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      return false;
    }
    this.client = client;
    return true;
  }

  get held(): boolean {
    return this.client !== undefined;
  }

  async release(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (c) await c.end().catch(() => undefined);
  }
}
