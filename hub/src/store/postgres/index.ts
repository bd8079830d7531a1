// The PostgreSQL engine of the hub store (node-postgres + drizzle). Same contract as the SQLite
// engine; what differs is that several hub processes share the database:
// - publishes are group-committed per process (one transaction per event-loop turn, one batch at a
//   time); the topic row is bumped with UPDATE ... RETURNING, whose row lock keeps per-topic sequence
//   numbers gap-free and ordered under concurrent publishers in other processes (M-3);
// - every change another process must hear about is announced with pg_notify inside the same
//   transaction, so it is delivered exactly when (and only if) the change commits (see ./events.ts).
import pg from 'pg';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm';
import type { SignatureMethod } from '@rsnotify/shared';
import { StoreError } from '../errors.js';
import * as schema from './schema.js';
import type {
  ActivatedSubscription,
  CursorUpdate,
  HubRepository,
  Intent,
  NewIntent,
  NewNotification,
  SourceRecord,
  StoredNotification,
  Subscription,
  SubscriptionCounts,
  TopicRecord,
} from '../repository.js';
import {
  connectAndMigrate,
  createPool,
  describePgUrl,
  isUnavailable,
  type PgTarget,
} from './connection.js';
import { HUB_CHANNEL, StoreEvents, encodeEvent, type StoreEvent } from './events.js';
import { PgClusterStore } from './cluster.js';

type Db = NodePgDatabase<typeof schema>;
type SubscriptionRow = typeof schema.subscriptions.$inferSelect;

export function toSubscription(row: SubscriptionRow, topicUrl: string): Subscription {
  return {
    id: row.id,
    topicId: row.topicId,
    topicUrl,
    topicAsGiven: row.topicAsGiven,
    callback: row.callback,
    secret: row.secret ?? undefined,
    algorithm: row.algorithm as SignatureMethod,
    leaseSeconds: row.leaseSeconds,
    leaseExpiresAt: row.leaseExpiresAt,
    deliveredSeq: row.deliveredSeq,
    nextAttemptAt: row.nextAttemptAt,
    attempts: row.attempts,
    firstFailedAt: row.firstFailedAt ?? undefined,
    lastStatus: row.lastStatus ?? undefined,
    lastError: row.lastError ?? undefined,
  };
}

function toIntent(row: typeof schema.intents.$inferSelect): Intent {
  return {
    id: row.id,
    mode: row.mode,
    topicUrl: row.topicUrl,
    topicAsGiven: row.topicAsGiven,
    callback: row.callback,
    secret: row.secret ?? undefined,
    leaseSeconds: row.leaseSeconds ?? undefined,
    reason: row.reason ?? undefined,
    attempts: row.attempts,
    nextAttemptAt: row.nextAttemptAt,
    createdAt: row.createdAt,
  };
}

export interface PostgresRepository extends HubRepository {
  close(): Promise<void>;
  readonly target: PgTarget;
  /** Changes committed by any process (publishes, subscription changes, Source changes). */
  readonly events: StoreEvents;
  /** The queries that coordinate several hub processes (claims, heartbeats, leadership). */
  readonly cluster: PgClusterStore;
}

/** Connects (one clear error line when it cannot), applies the migrations, starts listening. */
export async function openPostgresRepository(
  url: string,
  options: { poolSize?: number; listen?: boolean } = {},
): Promise<PostgresRepository> {
  const target = describePgUrl(url);
  await connectAndMigrate(url, target);
  const pool = createPool(url, options.poolSize ?? 16);
  const events = new StoreEvents(url, options.listen ?? true);
  const repo = new PgRepository(pool, target, events, url);
  // A client losing its connection (idle, or checked out between two queries of a transaction) must
  // not crash the process with an unhandled 'error' event; the failing call reports it instead.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  if (options.listen ?? true) await events.start();
  return repo;
}

type Pending = {
  n: NewNotification;
  resolve: (r: { topicId: number; seq: number }) => void;
  reject: (e: unknown) => void;
};

class PgRepository implements PostgresRepository {
  private readonly db: Db;
  readonly cluster: PgClusterStore;
  private pendingAppends: Pending[] = [];
  private readonly recentReads = new Map<string, Promise<StoredNotification | undefined>>();
  private appending = false;
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    readonly target: PgTarget,
    readonly events: StoreEvents,
    url: string,
  ) {
    this.db = drizzle(pool, { schema });
    this.cluster = new PgClusterStore(pool, (fn) => this.call(fn), url);
  }

  /** Runs a store call, turning a lost database into RSN_STORE_UNAVAILABLE (answered 503 upstream). */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof StoreError) throw err;
      if (this.closed || isUnavailable(err)) {
        throw new StoreError(
          'RSN_STORE_UNAVAILABLE',
          `database unavailable (${this.target.host}:${this.target.port}): ${(err as Error).message}`,
          { cause: err, details: { host: this.target.host } },
        );
      }
      throw err;
    }
  }

  private tx<T>(
    fn: (tx: Parameters<Parameters<Db['transaction']>[0]>[0]) => Promise<T>,
  ): Promise<T> {
    return this.call(() => this.db.transaction(fn));
  }

  private notify(tx: { execute: Db['execute'] }, event: StoreEvent) {
    return tx.execute(sql`SELECT pg_notify(${HUB_CHANNEL}, ${encodeEvent(event)})`);
  }

  // --- tenants -------------------------------------------------------------------------------

  async addSource(s: {
    name: string;
    tokenHash: string;
    topicPrefixes: readonly string[];
    callbackPrefixes: readonly string[];
    now: number;
  }): Promise<SourceRecord> {
    return this.tx(async (tx) => {
      const [existing] = await tx
        .select()
        .from(schema.sources)
        .where(eq(schema.sources.name, s.name));
      if (existing)
        throw new StoreError(
          'RSN_SOURCE_EXISTS',
          `a Source named ${JSON.stringify(s.name)} exists already`,
          { details: { name: s.name } },
        );
      const taken =
        s.topicPrefixes.length === 0
          ? []
          : await tx
              .select()
              .from(schema.sourcePrefixes)
              .where(inArray(schema.sourcePrefixes.prefix, [...s.topicPrefixes]));
      if (taken.length > 0) {
        throw new StoreError(
          'RSN_PREFIX_TAKEN',
          `topic prefix ${taken[0]!.prefix} belongs to another Source`,
          { details: { prefix: taken[0]!.prefix } },
        );
      }
      const [row] = await tx
        .insert(schema.sources)
        .values({ name: s.name, tokenHash: s.tokenHash, createdAt: s.now })
        .returning();
      const topicPrefixes = [...new Set(s.topicPrefixes)];
      const callbackPrefixes = [...new Set(s.callbackPrefixes)];
      if (topicPrefixes.length)
        await tx
          .insert(schema.sourcePrefixes)
          .values(topicPrefixes.map((prefix) => ({ sourceId: row!.id, prefix })));
      if (callbackPrefixes.length)
        await tx
          .insert(schema.sourceCallbackPrefixes)
          .values(callbackPrefixes.map((prefix) => ({ sourceId: row!.id, prefix })));
      await this.notify(tx, { kind: 'sources' });
      return {
        id: row!.id,
        name: row!.name,
        tokenHash: row!.tokenHash,
        topicPrefixes,
        callbackPrefixes,
        createdAt: row!.createdAt,
      };
    }).catch((err: unknown) => {
      // Two processes adding at once: the unique indexes decide, with the same codes as the check above.
      const c = err as { code?: string; constraint?: string };
      if (c.code === '23505' && c.constraint === 'sources_name_unique')
        throw new StoreError(
          'RSN_SOURCE_EXISTS',
          `a Source named ${JSON.stringify(s.name)} exists already`,
        );
      if (c.code === '23505' && c.constraint === 'source_prefixes_prefix_unique')
        throw new StoreError('RSN_PREFIX_TAKEN', 'a topic prefix belongs to another Source');
      throw err;
    });
  }

  async removeSource(name: string): Promise<boolean> {
    return this.tx(async (tx) => {
      const rows = await tx
        .delete(schema.sources)
        .where(eq(schema.sources.name, name))
        .returning({ id: schema.sources.id });
      if (rows.length > 0) await this.notify(tx, { kind: 'sources' });
      return rows.length > 0;
    });
  }

  async listSources(): Promise<SourceRecord[]> {
    return this.call(async () => {
      const rows = await this.db.select().from(schema.sources).orderBy(asc(schema.sources.name));
      const prefixes = await this.db
        .select()
        .from(schema.sourcePrefixes)
        .orderBy(asc(schema.sourcePrefixes.id));
      const callbacks = await this.db
        .select()
        .from(schema.sourceCallbackPrefixes)
        .orderBy(asc(schema.sourceCallbackPrefixes.id));
      return rows.map((r) => ({
        id: r.id,
        name: r.name,
        tokenHash: r.tokenHash,
        createdAt: r.createdAt,
        topicPrefixes: prefixes.filter((p) => p.sourceId === r.id).map((p) => p.prefix),
        callbackPrefixes: callbacks.filter((p) => p.sourceId === r.id).map((p) => p.prefix),
      }));
    });
  }

  externalChangeMarker(): number {
    // Moves on every committed Source change of any process (LISTEN), and on a listener reconnect.
    return this.events.sourcesMarker;
  }

  // --- topics and notifications ---------------------------------------------------------------

  appendNotification(n: NewNotification): Promise<{ topicId: number; seq: number }> {
    return new Promise((resolve, reject) => {
      this.pendingAppends.push({ n, resolve, reject });
      if (!this.appending && this.pendingAppends.length === 1)
        setImmediate(() => void this.flushAppends());
    });
  }

  /** Group commit: one transaction per batch, one batch at a time; arrival order is seq order per topic. */
  private async flushAppends(): Promise<void> {
    if (this.appending) return;
    this.appending = true;
    try {
      while (this.pendingAppends.length > 0) {
        const batch = this.pendingAppends.splice(0, 256);
        try {
          const results = await this.appendBatch(batch.map((b) => b.n));
          for (let i = 0; i < batch.length; i++) batch[i]!.resolve(results[i]!);
        } catch (err) {
          if (
            batch.length === 1 ||
            (err instanceof StoreError && err.code === 'RSN_STORE_UNAVAILABLE')
          ) {
            for (const b of batch) b.reject(err);
            continue;
          }
          // One bad row must not fail its neighbours: retry them one transaction each.
          for (const b of batch) {
            try {
              b.resolve((await this.appendBatch([b.n]))[0]!);
            } catch (e) {
              b.reject(e);
            }
          }
        }
      }
    } finally {
      this.appending = false;
    }
  }

  private appendBatch(
    batch: readonly NewNotification[],
  ): Promise<{ topicId: number; seq: number }[]> {
    return this.call(async () => {
      const client = await this.pool.connect();
      try {
        await client.query('BEGIN');
        // Topics in a fixed order (by URL) so concurrent batches in other processes cannot deadlock.
        const counts = new Map<string, number>();
        for (const n of batch) counts.set(n.topicUrl, (counts.get(n.topicUrl) ?? 0) + 1);
        const ends = new Map<string, { id: number; lastSeq: number }>();
        for (const url of [...counts.keys()].sort()) {
          const k = counts.get(url)!;
          const r = await client.query<{ id: number; last_seq: number }>({
            name: 'rsn_bump_topic',
            text: `INSERT INTO topics (url, last_seq, created_at) VALUES ($1, $2, $3)
                   ON CONFLICT (url) DO UPDATE SET last_seq = topics.last_seq + EXCLUDED.last_seq RETURNING id, last_seq`,
            values: [url, k, batch[0]!.receivedAt],
          });
          ends.set(url, { id: r.rows[0]!.id, lastSeq: r.rows[0]!.last_seq });
        }
        const next = new Map<string, number>();
        for (const [url, end] of ends) next.set(url, end.lastSeq - counts.get(url)! + 1);
        const results = batch.map((n) => {
          const seq = next.get(n.topicUrl)!;
          next.set(n.topicUrl, seq + 1);
          return { topicId: ends.get(n.topicUrl)!.id, seq };
        });
        await client.query({
          name: 'rsn_insert_notifications',
          text: `INSERT INTO notifications (topic_id, seq, received_at, content_type, link_header, body)
                 SELECT * FROM unnest($1::int[], $2::int[], $3::bigint[], $4::text[], $5::text[], $6::bytea[])`,
          values: [
            results.map((r) => r.topicId),
            results.map((r) => r.seq),
            batch.map((n) => n.receivedAt),
            batch.map((n) => n.contentType),
            batch.map((n) => n.linkHeader),
            batch.map((n) => n.body),
          ],
        });
        for (const end of ends.values()) {
          await client.query({
            name: 'rsn_notify',
            text: 'SELECT pg_notify($1, $2)',
            values: [
              HUB_CHANNEL,
              encodeEvent({ kind: 'published', topicId: end.id, seq: end.lastSeq }),
            ],
          });
        }
        await client.query('COMMIT');
        return results;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    });
  }

  /**
   * Every subscription of a topic reads the same row when the notification was published by another
   * process (not in this process's cache): concurrent reads of one row share one query, and the last
   * rows read are kept, so a fan-out to N subscribers costs one read, not N.
   */
  getNotification(topicId: number, seq: number): Promise<StoredNotification | undefined> {
    const key = `${topicId}:${seq}`;
    const hit = this.recentReads.get(key);
    if (hit) return hit;
    const read = this.readNotification(topicId, seq);
    this.recentReads.set(key, read);
    read.then(
      (n) => {
        if (!n) this.recentReads.delete(key);
      },
      () => this.recentReads.delete(key),
    );
    if (this.recentReads.size > 512) this.recentReads.delete(this.recentReads.keys().next().value!);
    return read;
  }

  private readNotification(topicId: number, seq: number): Promise<StoredNotification | undefined> {
    return this.call(async () => {
      const r = await this.pool.query<StoredNotification>({
        name: 'rsn_get_notification',
        text: 'SELECT topic_id AS "topicId", seq, received_at AS "receivedAt", content_type AS "contentType", link_header AS "linkHeader", body FROM notifications WHERE topic_id = $1 AND seq = $2',
        values: [topicId, seq],
      });
      return r.rows[0];
    });
  }

  async listTopics(): Promise<TopicRecord[]> {
    return this.call(() =>
      this.db
        .select({ id: schema.topics.id, url: schema.topics.url, lastSeq: schema.topics.lastSeq })
        .from(schema.topics),
    );
  }

  async pruneNotifications(receivedBefore: number): Promise<number> {
    return this.call(async () => {
      const r = await this.pool.query(
        `
        DELETE FROM notifications n
         WHERE n.received_at < $1
           AND n.seq <= COALESCE((SELECT MIN(s.delivered_seq) FROM subscriptions s WHERE s.topic_id = n.topic_id),
                                 (SELECT t.last_seq FROM topics t WHERE t.id = n.topic_id))`,
        [receivedBefore],
      );
      return r.rowCount ?? 0;
    });
  }

  // --- subscriptions --------------------------------------------------------------------------

  async listSubscriptions(filter: { topicUrl?: string } = {}): Promise<Subscription[]> {
    return this.call(async () => {
      const q = this.db
        .select({ s: schema.subscriptions, url: schema.topics.url })
        .from(schema.subscriptions)
        .innerJoin(schema.topics, eq(schema.subscriptions.topicId, schema.topics.id));
      const rows =
        filter.topicUrl === undefined
          ? await q.orderBy(asc(schema.subscriptions.id))
          : await q
              .where(eq(schema.topics.url, filter.topicUrl))
              .orderBy(asc(schema.subscriptions.id));
      return rows.map((r) => toSubscription(r.s, r.url));
    });
  }

  async activateSubscription(a: ActivatedSubscription): Promise<Subscription> {
    return this.tx(async (tx) => {
      // The topic row is locked for the transaction: its last_seq cannot move under the new cursor.
      const [topic] = await tx
        .insert(schema.topics)
        .values({ url: a.topicUrl, lastSeq: 0, createdAt: a.now })
        .onConflictDoUpdate({
          target: schema.topics.url,
          set: { lastSeq: sql`${schema.topics.lastSeq}` },
        })
        .returning({ id: schema.topics.id, lastSeq: schema.topics.lastSeq });
      const topicId = topic!.id;
      const [existing] = await tx
        .select()
        .from(schema.subscriptions)
        .where(
          and(
            eq(schema.subscriptions.topicId, topicId),
            eq(schema.subscriptions.callback, a.callback),
          ),
        )
        .for('update');
      const lease = {
        topicAsGiven: a.topicAsGiven,
        secret: a.secret ?? null,
        algorithm: a.algorithm,
        leaseSeconds: a.leaseSeconds,
        leaseExpiresAt: a.leaseExpiresAt,
        updatedAt: a.now,
      };
      let row: SubscriptionRow;
      if (existing && a.hasLapsed(existing.leaseExpiresAt, a.now)) {
        // WH-13: a renewal after the lease lapsed is a new subscription; its cursor restarts at the topic's end.
        [row] = (await tx
          .update(schema.subscriptions)
          .set({
            ...lease,
            deliveredSeq: topic!.lastSeq,
            attempts: 0,
            nextAttemptAt: 0,
            firstFailedAt: null,
            lastStatus: null,
            lastError: null,
          })
          .where(eq(schema.subscriptions.id, existing.id))
          .returning()) as [SubscriptionRow];
      } else if (existing) {
        // WH-9: a verified re-subscription replaces lease and secret; the cursor stays where it is.
        [row] = (await tx
          .update(schema.subscriptions)
          .set(lease)
          .where(eq(schema.subscriptions.id, existing.id))
          .returning()) as [SubscriptionRow];
      } else {
        [row] = (await tx
          .insert(schema.subscriptions)
          .values({
            topicId,
            callback: a.callback,
            ...lease,
            deliveredSeq: topic!.lastSeq,
            createdAt: a.now,
          })
          .returning()) as [SubscriptionRow];
      }
      await this.notify(tx, { kind: 'subscription', id: row.id });
      return toSubscription(row, a.topicUrl);
    });
  }

  async removeSubscription(topicUrl: string, callback: string): Promise<Subscription | undefined> {
    return this.tx(async (tx) => {
      const [topic] = await tx
        .select({ id: schema.topics.id })
        .from(schema.topics)
        .where(eq(schema.topics.url, topicUrl));
      if (!topic) return undefined;
      const [row] = await tx
        .delete(schema.subscriptions)
        .where(
          and(
            eq(schema.subscriptions.topicId, topic.id),
            eq(schema.subscriptions.callback, callback),
          ),
        )
        .returning();
      if (!row) return undefined;
      await this.notify(tx, { kind: 'removed', id: row.id });
      return toSubscription(row, topicUrl);
    });
  }

  async removeSubscriptionById(id: number): Promise<void> {
    await this.tx(async (tx) => {
      const rows = await tx
        .delete(schema.subscriptions)
        .where(eq(schema.subscriptions.id, id))
        .returning({ id: schema.subscriptions.id });
      if (rows.length > 0) await this.notify(tx, { kind: 'removed', id });
    });
  }

  async saveCursors(updates: readonly CursorUpdate[], now: number): Promise<void> {
    if (updates.length === 0) return;
    await this.call(async () => {
      const client = await this.pool.connect();
      try {
        await client.query('BEGIN');
        // One statement for the whole batch; a cursor never moves backwards (GREATEST).
        await client.query({
          name: 'rsn_save_cursors',
          text: `UPDATE subscriptions s SET delivered_seq = GREATEST(s.delivered_seq, u.delivered_seq), attempts = u.attempts,
                   next_attempt_at = u.next_attempt_at, first_failed_at = u.first_failed_at, last_status = u.last_status,
                   last_error = u.last_error, updated_at = $8
                 FROM unnest($1::int[], $2::int[], $3::int[], $4::bigint[], $5::bigint[], $6::int[], $7::text[])
                   AS u(id, delivered_seq, attempts, next_attempt_at, first_failed_at, last_status, last_error)
                 WHERE s.id = u.id`,
          values: [
            updates.map((u) => u.subscriptionId),
            updates.map((u) => u.deliveredSeq),
            updates.map((u) => u.attempts),
            updates.map((u) => u.nextAttemptAt),
            updates.map((u) => u.firstFailedAt ?? null),
            updates.map((u) => u.lastStatus ?? null),
            updates.map((u) => u.lastError ?? null),
            now,
          ],
        });
        const gaveUp = updates.filter((u) => u.givenUp);
        if (gaveUp.length > 0) {
          await client.query(
            `INSERT INTO given_up (subscription_id, topic_id, callback, seq, reason, at)
                              SELECT *, $6::bigint FROM unnest($1::int[], $2::int[], $3::text[], $4::int[], $5::text[])`,
            [
              gaveUp.map((u) => u.subscriptionId),
              gaveUp.map((u) => u.givenUp!.topicId),
              gaveUp.map((u) => u.givenUp!.callback),
              gaveUp.map((u) => u.givenUp!.seq),
              gaveUp.map((u) => u.givenUp!.reason),
              now,
            ],
          );
        }
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    });
  }

  async removeExpiredSubscriptions(now: number): Promise<Subscription[]> {
    return this.tx(async (tx) => {
      const rows = await tx
        .delete(schema.subscriptions)
        .where(lte(schema.subscriptions.leaseExpiresAt, now))
        .returning();
      if (rows.length === 0) return [];
      const urls = new Map(
        (
          await tx
            .select({ id: schema.topics.id, url: schema.topics.url })
            .from(schema.topics)
            .where(inArray(schema.topics.id, [...new Set(rows.map((r) => r.topicId))]))
        ).map((t) => [t.id, t.url]),
      );
      for (const r of rows) await this.notify(tx, { kind: 'removed', id: r.id });
      return rows.map((r) => toSubscription(r, urls.get(r.topicId) ?? ''));
    });
  }

  async countSubscriptions(now: number): Promise<SubscriptionCounts> {
    return this.call(async () => {
      const r = await this.pool.query<{ active: number; expired: number; pending: number }>(
        `SELECT
          (SELECT COUNT(*) FROM subscriptions WHERE lease_expires_at > $1)::int AS active,
          (SELECT COUNT(*) FROM subscriptions WHERE lease_expires_at <= $1)::int AS expired,
          (SELECT COUNT(*) FROM intents)::int AS pending`,
        [now],
      );
      return r.rows[0]!;
    });
  }

  async countGivenUp(): Promise<number> {
    return this.call(
      async () =>
        (await this.pool.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM given_up')).rows[0]!
          .n,
    );
  }

  // --- intents --------------------------------------------------------------------------------

  async addIntent(i: NewIntent): Promise<Intent> {
    return this.tx(async (tx) => {
      await tx
        .delete(schema.intents)
        .where(
          and(eq(schema.intents.topicUrl, i.topicUrl), eq(schema.intents.callback, i.callback)),
        );
      const [row] = await tx
        .insert(schema.intents)
        .values({
          mode: i.mode,
          topicUrl: i.topicUrl,
          topicAsGiven: i.topicAsGiven,
          callback: i.callback,
          secret: i.secret ?? null,
          leaseSeconds: i.leaseSeconds ?? null,
          reason: i.reason ?? null,
          nextAttemptAt: i.nextAttemptAt,
          createdAt: i.createdAt,
        })
        .returning();
      await this.notify(tx, { kind: 'intent' });
      return toIntent(row!);
    });
  }

  async dueIntents(now: number, limit: number): Promise<Intent[]> {
    return this.call(async () =>
      (
        await this.db
          .select()
          .from(schema.intents)
          .where(lte(schema.intents.nextAttemptAt, now))
          .orderBy(asc(schema.intents.id))
          .limit(limit)
      ).map(toIntent),
    );
  }

  async nextIntentDueAt(): Promise<number | undefined> {
    return this.call(async () => {
      const [row] = await this.db
        .select({ at: sql<string | number | null>`MIN(${schema.intents.nextAttemptAt})` })
        .from(schema.intents);
      return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
    });
  }

  async deleteIntent(id: number): Promise<void> {
    await this.call(() => this.db.delete(schema.intents).where(eq(schema.intents.id, id)));
  }

  async rescheduleIntent(id: number, attempts: number, nextAttemptAt: number): Promise<void> {
    await this.call(() =>
      this.db
        .update(schema.intents)
        .set({ attempts, nextAttemptAt })
        .where(eq(schema.intents.id, id)),
    );
  }

  async ping(): Promise<void> {
    await this.call(() => this.pool.query('SELECT 1'));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.appending || this.pendingAppends.length > 0) {
      if (!this.appending) void this.flushAppends();
      await new Promise((r) => setTimeout(r, 5));
    }
    await this.events.close();
    await this.pool.end().catch(() => undefined);
  }
}
