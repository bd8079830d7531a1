// The PostgreSQL engine of the console's AdminStore: a small pool of its own on the hub's database
// (the tables come with the hub's migrations, applied here too). Changes other hub processes must act on are announced
// on the hub's channel inside the same transaction: a rotated token ('sources'), a deleted
// subscription ('removed'), so every process's Source cache and delivery scheduler follow.
import pg from 'pg';
import type {
  AdminStore,
  AdminTokenRecord,
  ClusterCounters,
  GivenUpRecord,
  RejectionRecord,
  SubscriptionDeliveryRow,
  TopicStats,
} from '../admin-contract.js';
import {
  adminTokenExists,
  DELIVERY_SELECT,
  REJECTIONS_KEPT,
  toDelivery,
  toToken,
  type DeliveryRow,
  type TokenRow,
} from '../admin-rows.js';
import { clientConfig, connectAndMigrate, describePgUrl } from './connection.js';
import { encodeEvent, HUB_CHANNEL } from './events.js';
import { inClientTransaction } from './context.js';

/** Applies the hub's migrations first (idempotent, under their advisory lock): `admin token create` may run before any hub. */
export async function openPostgresAdminStore(url: string): Promise<AdminStore> {
  await connectAndMigrate(url, describePgUrl(url));
  const pool = new pg.Pool({ ...clientConfig(url), max: 2, idleTimeoutMillis: 30_000 });
  pool.on('error', () => undefined);
  return new PgAdminStore(pool);
}

class PgAdminStore implements AdminStore {
  constructor(private readonly pool: pg.Pool) {}

  private async rows<T>(text: string, values: unknown[] = []): Promise<T[]> {
    return (await this.pool.query(text, values)).rows as T[];
  }

  private tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return inClientTransaction(this.pool, fn);
  }

  async addAdminToken(t: {
    name: string;
    tokenHash: string;
    now: number;
  }): Promise<AdminTokenRecord> {
    try {
      const [row] = await this.rows<TokenRow>(
        'INSERT INTO admin_tokens (name, token_hash, created_at) VALUES ($1, $2, $3) RETURNING *',
        [t.name, t.tokenHash, t.now],
      );
      return toToken(row!);
    } catch (err) {
      if ((err as { code?: string }).code === '23505') {
        throw adminTokenExists(t.name);
      }
      throw err;
    }
  }

  async listAdminTokens(): Promise<AdminTokenRecord[]> {
    return (await this.rows<TokenRow>('SELECT * FROM admin_tokens ORDER BY name')).map(toToken);
  }

  async revokeAdminToken(name: string): Promise<boolean> {
    return (
      ((await this.pool.query('DELETE FROM admin_tokens WHERE name = $1', [name])).rowCount ?? 0) >
      0
    );
  }

  async findAdminTokenByHash(tokenHash: string): Promise<AdminTokenRecord | undefined> {
    const [row] = await this.rows<TokenRow>('SELECT * FROM admin_tokens WHERE token_hash = $1', [
      tokenHash,
    ]);
    return row ? toToken(row) : undefined;
  }

  async touchAdminToken(id: number, now: number): Promise<void> {
    await this.pool.query('UPDATE admin_tokens SET last_used_at = $1 WHERE id = $2', [now, id]);
  }

  async createSession(s: {
    sessionHash: string;
    adminTokenId: number;
    now: number;
    expiresAt: number;
  }): Promise<void> {
    await this.tx(async (c) => {
      await c.query('DELETE FROM admin_sessions WHERE expires_at <= $1', [s.now]);
      await c.query(
        'INSERT INTO admin_sessions (session_hash, admin_token_id, created_at, expires_at) VALUES ($1, $2, $3, $4)',
        [s.sessionHash, s.adminTokenId, s.now, s.expiresAt],
      );
    });
  }

  async findSession(sessionHash: string, now: number): Promise<AdminTokenRecord | undefined> {
    const [row] = await this.rows<TokenRow>(
      `SELECT t.* FROM admin_sessions s JOIN admin_tokens t ON t.id = s.admin_token_id
      WHERE s.session_hash = $1 AND s.expires_at > $2`,
      [sessionHash, now],
    );
    return row ? toToken(row) : undefined;
  }

  async deleteSession(sessionHash: string): Promise<void> {
    await this.pool.query('DELETE FROM admin_sessions WHERE session_hash = $1', [sessionHash]);
  }

  async recordRejection(r: {
    at: number;
    status: number;
    kind: string;
    reason: string;
  }): Promise<void> {
    const [row] = await this.rows<{ id: number }>(
      'INSERT INTO admin_rejections (at, status, kind, reason) VALUES ($1, $2, $3, $4) RETURNING id',
      [r.at, r.status, r.kind, r.reason.slice(0, 500)],
    );
    if (row && row.id % 50 === 0)
      await this.pool.query('DELETE FROM admin_rejections WHERE id <= $1', [
        row.id - REJECTIONS_KEPT,
      ]);
  }

  async recentRejections(limit: number): Promise<RejectionRecord[]> {
    return this.rows<RejectionRecord>(
      'SELECT id, at, status, kind, reason FROM admin_rejections ORDER BY id DESC LIMIT $1',
      [limit],
    );
  }

  async setSourceTokenHash(name: string, tokenHash: string): Promise<boolean> {
    return this.tx(async (c) => {
      const changed =
        ((await c.query('UPDATE sources SET token_hash = $1 WHERE name = $2', [tokenHash, name]))
          .rowCount ?? 0) > 0;
      if (changed)
        await c.query('SELECT pg_notify($1, $2)', [HUB_CHANNEL, encodeEvent({ kind: 'sources' })]);
      return changed;
    });
  }

  async topicStats(now: number, windowMs: number): Promise<TopicStats[]> {
    return this.rows<TopicStats>(
      `SELECT t.id, t.url, t.last_seq AS "lastSeq",
        (SELECT COUNT(*)::int FROM subscriptions s WHERE s.topic_id = t.id AND s.lease_expires_at > $1) AS subscribers,
        (SELECT COUNT(*)::int FROM notifications n WHERE n.topic_id = t.id AND n.received_at > $2) AS "recentNotifications"
      FROM topics t ORDER BY t.url`,
      [now, now - windowMs],
    );
  }

  async subscriptionDeliveries(): Promise<SubscriptionDeliveryRow[]> {
    return (await this.rows<DeliveryRow>(`${DELIVERY_SELECT} ORDER BY s.id`)).map(toDelivery);
  }

  async subscriptionDelivery(id: number): Promise<SubscriptionDeliveryRow | undefined> {
    const [row] = await this.rows<DeliveryRow>(`${DELIVERY_SELECT} WHERE s.id = $1`, [id]);
    return row ? toDelivery(row) : undefined;
  }

  async listGivenUp(subscriptionId: number): Promise<GivenUpRecord[]> {
    return this.rows<GivenUpRecord>(
      `SELECT id, subscription_id AS "subscriptionId", topic_id AS "topicId", seq, reason, at
      FROM given_up WHERE subscription_id = $1 ORDER BY seq`,
      [subscriptionId],
    );
  }

  async deleteGivenUp(id: number): Promise<void> {
    await this.pool.query('DELETE FROM given_up WHERE id = $1', [id]);
  }

  async deleteSubscription(id: number): Promise<boolean> {
    return this.tx(async (c) => {
      await c.query('DELETE FROM given_up WHERE subscription_id = $1', [id]);
      const gone =
        ((await c.query('DELETE FROM subscriptions WHERE id = $1', [id])).rowCount ?? 0) > 0;
      if (gone)
        await c.query('SELECT pg_notify($1, $2)', [
          HUB_CHANNEL,
          encodeEvent({ kind: 'removed', id }),
        ]);
      return gone;
    });
  }

  async counters(now: number): Promise<ClusterCounters> {
    const [row] = await this.rows<ClusterCounters>(
      `SELECT
        (SELECT COUNT(*)::int FROM subscriptions WHERE lease_expires_at > $1) AS "activeSubscriptions",
        (SELECT COUNT(*)::int FROM intents) AS "pendingIntents",
        (SELECT COALESCE(SUM(GREATEST(0, t.last_seq - s.delivered_seq)), 0)::int FROM subscriptions s JOIN topics t ON t.id = s.topic_id) AS "queueDepth",
        (SELECT COUNT(*)::int FROM given_up) AS "givenUp",
        (SELECT COUNT(*)::int FROM notifications WHERE received_at > $2) AS "notificationsLastMinute",
        (SELECT COUNT(*)::int FROM admin_rejections WHERE at > $3) AS "rejectionsLastHour"`,
      [now, now - 60_000, now - 3_600_000],
    );
    return row!;
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}
