// The SQLite engine's HubRepository (opened by ./index.ts): prepared statements on the hot paths
// (publish, cursor batch, notification read), drizzle for the cold queries, one transaction per
// call; tenants, intents and upkeep queries live beside it by concept.
import type Database from 'better-sqlite3';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { and, asc, eq } from 'drizzle-orm';
import { GroupCommit, SqliteBodyParts } from '@rsnotify/service-kit';
import { StoreError } from '../errors.js';
import { toSubscription } from '../rows.js';
import * as schema from '../schema.js';
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
import type { SqliteContext } from './context.js';
import * as tenants from './tenants.js';
import * as intents from './intents.js';
import * as upkeep from './upkeep.js';
import { topicEndSql, type TopicEnds } from './topic-ends.js';

type SubscriptionRow = typeof schema.subscriptions.$inferSelect;

/** A notification as the group commit writes it: its body inline, or staged under `payloadId`. */
type Append = NewNotification & { readonly payloadId: number | null };

const EMPTY = Buffer.alloc(0);

export class SqliteRepository implements HubRepository {
  private readonly topicByUrl: Database.Statement<[string]>;
  private readonly insertTopic: Database.Statement<[string, number]>;
  private readonly insertNotification: Database.Statement<
    [number, number, number, string, string, Buffer, number | null]
  >;
  private readonly selectNotification: Database.Statement<[number, number]>;
  private readonly selectTopics: Database.Statement<[]>;
  private readonly updateCursor: Database.Statement<
    [number, number, number, number | null, number | null, string | null, number, number]
  >;
  private readonly insertGivenUp: Database.Statement<
    [number, number, string, number, string, number]
  >;
  private readonly topicIds = new Map<string, number>();
  private readonly appendTx: Database.Transaction<
    (batch: readonly Append[]) => { topicId: number; seq: number }[]
  >;
  private readonly appends: GroupCommit<Append, { topicId: number; seq: number }>;
  private readonly payloads: SqliteBodyParts;
  private readonly cursorsTx: (updates: readonly CursorUpdate[], now: number) => void;
  private readonly ctx: SqliteContext;

  constructor(
    private readonly sqlite: Database.Database,
    private readonly db: BetterSQLite3Database<typeof schema>,
    /** Each topic's end, shared with the bridge's store on this connection. */
    private readonly topicEnds: TopicEnds,
    /** Stops the checkpoint worker; resolves once it has ended. */
    private readonly onClose: () => Promise<void> = () => Promise.resolve(),
  ) {
    this.ctx = { sqlite, db };
    this.topicByUrl = sqlite.prepare('SELECT id FROM topics WHERE url = ?');
    this.insertTopic = sqlite.prepare(
      'INSERT INTO topics (url, last_seq, created_at) VALUES (?, 0, ?) RETURNING id',
    );
    this.insertNotification = sqlite.prepare(
      'INSERT INTO notifications (topic_id, seq, received_at, content_type, link_header, body, payload_id) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.selectNotification = sqlite.prepare(
      'SELECT topic_id AS topicId, seq, received_at AS receivedAt, content_type AS contentType, link_header AS linkHeader, body, payload_id AS payloadId FROM notifications WHERE topic_id = ? AND seq = ?',
    );
    this.selectTopics = sqlite.prepare(
      `SELECT t.id, t.url, ${topicEndSql('t')} AS lastSeq FROM topics t`,
    );
    this.payloads = new SqliteBodyParts(
      sqlite,
      { parts: 'notification_parts', rows: 'notifications' },
      () => new StoreError('RSN_STORE_UNAVAILABLE', 'the hub database is closed'),
    );
    this.updateCursor = sqlite.prepare(
      'UPDATE subscriptions SET delivered_seq = MAX(delivered_seq, ?), attempts = ?, next_attempt_at = ?, first_failed_at = ?, last_status = ?, last_error = ?, updated_at = ? WHERE id = ?',
    );
    this.insertGivenUp = sqlite.prepare(
      'INSERT INTO given_up (subscription_id, topic_id, callback, seq, reason, at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.appends = new GroupCommit({
      // IMMEDIATE: the write lock is held from BEGIN, so the ends read in it are the latest.
      commit: (batch) => this.topicEnds.appending(() => this.appendTx.immediate(batch)),
      closedError: () => new StoreError('RSN_STORE_UNAVAILABLE', 'the hub database is closed'),
    });
    this.appendTx = sqlite.transaction((batch: readonly Append[]) => {
      const topicIds = batch.map((n) => this.ensureTopic(n.topicUrl, n.receivedAt));
      const seqs = this.topicEnds.reserve(topicIds);
      return batch.map((n, i) => {
        const topicId = topicIds[i]!;
        const seq = seqs[i]!;
        this.insertNotification.run(
          topicId,
          seq,
          n.receivedAt,
          n.contentType,
          n.linkHeader,
          n.payloadId === null ? n.body : EMPTY,
          n.payloadId,
        );
        return { topicId, seq };
      });
    });
    this.cursorsTx = sqlite.transaction((updates: readonly CursorUpdate[], now: number) => {
      for (const u of updates) {
        this.updateCursor.run(
          u.deliveredSeq,
          u.attempts,
          u.nextAttemptAt,
          u.firstFailedAt ?? null,
          u.lastStatus ?? null,
          u.lastError ?? null,
          now,
          u.subscriptionId,
        );
        if (u.givenUp)
          this.insertGivenUp.run(
            u.subscriptionId,
            u.givenUp.topicId,
            u.givenUp.callback,
            u.givenUp.seq,
            u.givenUp.reason,
            now,
          );
      }
    });
  }

  private ensureTopic(url: string, now: number): number {
    const cached = this.topicIds.get(url);
    if (cached !== undefined) return cached;
    const row =
      (this.topicByUrl.get(url) as { id: number } | undefined) ??
      (this.insertTopic.get(url, now) as { id: number });
    this.topicIds.set(url, row.id);
    return row.id;
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
    return this.topicEnds.dataVersion();
  }

  // --- topics and notifications ---------------------------------------------------------------

  /**
   * Group commit: publishes that arrive in the same turn of the event loop are written in one
   * transaction (one WAL commit), and each caller is answered only after that commit. Order within
   * the batch is arrival order, so seq order is still publish order per topic.
   */
  async appendNotification(n: NewNotification): Promise<{ topicId: number; seq: number }> {
    // A large body is staged in parts first; its row (and so the notification) commits after.
    const payloadId = SqliteBodyParts.needsParts(n.body)
      ? await this.payloads.stage(n.body, n.receivedAt)
      : null;
    return this.appends.submit({ ...n, payloadId });
  }

  async getNotification(topicId: number, seq: number): Promise<StoredNotification | undefined> {
    const row = this.selectNotification.get(topicId, seq) as
      (StoredNotification & { payloadId: number | null }) | undefined;
    if (row === undefined) return undefined;
    const { payloadId, ...stored } = row;
    return payloadId === null ? stored : { ...stored, body: await this.payloads.read(payloadId) };
  }

  async listTopics(): Promise<TopicRecord[]> {
    return this.selectTopics.all() as TopicRecord[];
  }

  pruneNotifications(receivedBefore: number): Promise<number> {
    return upkeep.pruneNotifications(this.ctx, receivedBefore, this.payloads);
  }

  // --- subscriptions --------------------------------------------------------------------------

  async listSubscriptions(filter: { topicUrl?: string } = {}): Promise<Subscription[]> {
    const q = this.db
      .select({ s: schema.subscriptions, url: schema.topics.url })
      .from(schema.subscriptions)
      .innerJoin(schema.topics, eq(schema.subscriptions.topicId, schema.topics.id));
    const rows =
      filter.topicUrl === undefined
        ? q.orderBy(asc(schema.subscriptions.id)).all()
        : q
            .where(eq(schema.topics.url, filter.topicUrl))
            .orderBy(asc(schema.subscriptions.id))
            .all();
    return rows.map((r) => toSubscription(r.s, r.url));
  }

  async activateSubscription(a: ActivatedSubscription): Promise<Subscription> {
    return this.sqlite.transaction(() => {
      const topicId = this.ensureTopic(a.topicUrl, a.now);
      const existing = this.db
        .select()
        .from(schema.subscriptions)
        .where(
          and(
            eq(schema.subscriptions.topicId, topicId),
            eq(schema.subscriptions.callback, a.callback),
          ),
        )
        .get();
      let row: SubscriptionRow;
      if (existing && a.hasLapsed(existing.leaseExpiresAt, a.now)) {
        // A renewal after the lease ran out is a new subscription: what was accepted while it had
        // lapsed was never owed to it (WH-13), so the cursor restarts at the topic's end.
        const end = this.topicEnds.read(topicId);
        row = this.db
          .update(schema.subscriptions)
          .set({
            topicAsGiven: a.topicAsGiven,
            secret: a.secret ?? null,
            algorithm: a.algorithm,
            leaseSeconds: a.leaseSeconds,
            leaseExpiresAt: a.leaseExpiresAt,
            deliveredSeq: end,
            attempts: 0,
            nextAttemptAt: 0,
            firstFailedAt: null,
            lastStatus: null,
            lastError: null,
            updatedAt: a.now,
          })
          .where(eq(schema.subscriptions.id, existing.id))
          .returning()
          .get();
      } else if (existing) {
        // WH-9: a verified re-subscription replaces lease and secret; the cursor stays where it is.
        row = this.db
          .update(schema.subscriptions)
          .set({
            topicAsGiven: a.topicAsGiven,
            secret: a.secret ?? null,
            algorithm: a.algorithm,
            leaseSeconds: a.leaseSeconds,
            leaseExpiresAt: a.leaseExpiresAt,
            updatedAt: a.now,
          })
          .where(eq(schema.subscriptions.id, existing.id))
          .returning()
          .get();
      } else {
        // A new subscription starts at the topic's current end: it gets what is accepted from now on.
        const end = this.topicEnds.read(topicId);
        row = this.db
          .insert(schema.subscriptions)
          .values({
            topicId,
            topicAsGiven: a.topicAsGiven,
            callback: a.callback,
            secret: a.secret ?? null,
            algorithm: a.algorithm,
            leaseSeconds: a.leaseSeconds,
            leaseExpiresAt: a.leaseExpiresAt,
            deliveredSeq: end,
            createdAt: a.now,
            updatedAt: a.now,
          })
          .returning()
          .get();
      }
      return toSubscription(row, a.topicUrl);
    })();
  }

  async removeSubscription(topicUrl: string, callback: string): Promise<Subscription | undefined> {
    const topicId = (this.topicByUrl.get(topicUrl) as { id: number } | undefined)?.id;
    if (topicId === undefined) return undefined;
    const row = this.db
      .delete(schema.subscriptions)
      .where(
        and(eq(schema.subscriptions.topicId, topicId), eq(schema.subscriptions.callback, callback)),
      )
      .returning()
      .get();
    return row ? toSubscription(row, topicUrl) : undefined;
  }

  async removeSubscriptionById(id: number): Promise<void> {
    this.db.delete(schema.subscriptions).where(eq(schema.subscriptions.id, id)).run();
  }

  async saveCursors(updates: readonly CursorUpdate[], now: number): Promise<void> {
    if (updates.length > 0) this.cursorsTx(updates, now);
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
    this.sqlite.prepare('SELECT 1').get();
  }

  /** Closes the connection at once; resolves once the checkpoint worker has ended too. */
  close(): Promise<void> {
    const workerEnded = this.onClose();
    if (this.sqlite.open) this.appends.close();
    if (this.sqlite.open) this.sqlite.close();
    return workerEnded;
  }
}
