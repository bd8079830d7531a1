// The PostgreSQL engine of the hub store (node-postgres + drizzle). Same contract as the SQLite
// engine; what differs is that several hub processes share the database:
// - publishes are group-committed per process, with gap-free per-topic seqs under concurrent
//   publishers in other processes (M-3; ./appends.ts);
// - every change another process must hear about is announced with pg_notify inside the same
//   transaction, so it is delivered exactly when (and only if) the change commits (see ./events.ts).
// The queries live by concept beside this file (tenants, appends, upkeep, intents, bridge, cluster);
// this class holds the connection, the error mapping and the subscription lifecycle.
import pg from 'pg';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { and, asc, eq, sql } from 'drizzle-orm';
import { StoreError } from '../errors.js';
import { toSubscription } from '../rows.js';
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
import { PgAppendQueue } from './appends.js';
import { readParts } from './payloads.js';
import type { PgContext } from './context.js';
import * as tenants from './tenants.js';
import * as intents from './intents.js';
import * as upkeep from './upkeep.js';
import type { BridgeRepository } from '../bridge-repository.js';
import { createPostgresBridgeRepository } from './bridge.js';

type Db = NodePgDatabase<typeof schema>;
type SubscriptionRow = typeof schema.subscriptions.$inferSelect;

export interface PostgresRepository extends HubRepository {
  close(): Promise<void>;
  readonly target: PgTarget;
  /** Changes committed by any process (publishes, subscription changes, Source changes). */
  readonly events: StoreEvents;
  /** The queries that coordinate several hub processes (claims, heartbeats, leadership). */
  readonly cluster: PgClusterStore;
  /** The poll-to-push bridge's store, on the same pool (a poll commits with its notifications). */
  readonly bridge: BridgeRepository;
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

class PgRepository implements PostgresRepository {
  private readonly db: Db;
  readonly cluster: PgClusterStore;
  readonly bridge: BridgeRepository;
  private readonly appends: PgAppendQueue;
  private readonly ctx: PgContext;
  private readonly recentReads = new Map<string, Promise<StoredNotification | undefined>>();
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    readonly target: PgTarget,
    readonly events: StoreEvents,
    url: string,
  ) {
    this.db = drizzle(pool, { schema });
    this.cluster = new PgClusterStore(pool, (fn) => this.call(fn), url);
    this.bridge = createPostgresBridgeRepository(pool, (fn) => this.call(fn));
    this.appends = new PgAppendQueue(pool, (fn) => this.call(fn));
    this.ctx = {
      db: this.db,
      pool,
      call: (fn) => this.call(fn),
      tx: (fn) => this.tx(fn),
      notify: (tx, e) => this.notify(tx, e),
    };
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

  addSource(s: {
    name: string;
    tokenHash: string;
    topicPrefixes: readonly string[];
    callbackPrefixes: readonly string[];
    now: number;
  }): Promise<SourceRecord> {
    return tenants.addSource(this.ctx, s);
  }

  removeSource(name: string): Promise<boolean> {
    return tenants.removeSource(this.ctx, name);
  }

  listSources(): Promise<SourceRecord[]> {
    return tenants.listSources(this.ctx);
  }

  externalChangeMarker(): number {
    // Moves on every committed Source change of any process (LISTEN), and on a listener reconnect.
    return this.events.sourcesMarker;
  }

  // --- topics and notifications ---------------------------------------------------------------

  appendNotification(n: NewNotification): Promise<{ topicId: number; seq: number }> {
    return this.appends.submit(n);
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
      const r = await this.pool.query<StoredNotification & { payloadId: number | null }>({
        name: 'rsn_get_notification',
        text: 'SELECT topic_id AS "topicId", seq, received_at AS "receivedAt", content_type AS "contentType", link_header AS "linkHeader", body, payload_id AS "payloadId" FROM notifications WHERE topic_id = $1 AND seq = $2',
        values: [topicId, seq],
      });
      if (!r.rows[0]) return undefined;
      const { payloadId, ...stored } = r.rows[0];
      return payloadId === null
        ? stored
        : { ...stored, body: await readParts(this.pool, payloadId) };
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

  saveCursors(updates: readonly CursorUpdate[], now: number): Promise<void> {
    return upkeep.saveCursors(this.ctx, updates, now);
  }

  removeExpiredSubscriptions(now: number): Promise<Subscription[]> {
    return upkeep.removeExpiredSubscriptions(this.ctx, now);
  }

  countSubscriptions(now: number): Promise<SubscriptionCounts> {
    return upkeep.countSubscriptions(this.ctx, now);
  }

  countGivenUp(): Promise<number> {
    return upkeep.countGivenUp(this.ctx);
  }

  // --- intents --------------------------------------------------------------------------------

  addIntent(i: NewIntent): Promise<Intent> {
    return intents.addIntent(this.ctx, i);
  }

  dueIntents(now: number, limit: number): Promise<Intent[]> {
    return intents.dueIntents(this.ctx, now, limit);
  }

  nextIntentDueAt(): Promise<number | undefined> {
    return intents.nextIntentDueAt(this.ctx);
  }

  deleteIntent(id: number): Promise<void> {
    return intents.deleteIntent(this.ctx, id);
  }

  rescheduleIntent(id: number, attempts: number, nextAttemptAt: number): Promise<void> {
    return intents.rescheduleIntent(this.ctx, id, attempts, nextAttemptAt);
  }

  async ping(): Promise<void> {
    await this.call(() => this.pool.query('SELECT 1'));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.appends.drain();
    await this.events.close();
    await this.pool.end().catch(() => undefined);
  }
}
