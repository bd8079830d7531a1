// The SQLite engine of the hub store: better-sqlite3 in WAL mode, drizzle for the schema, the
// migrations and the cold queries, and prepared statements on the hot paths (publish, cursor batch,
// notification read). synchronous=NORMAL in WAL survives a process crash (kill -9), which is what
// promise 1 needs; only a power loss can take back the last commits.
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm';
import { chmodSync } from 'node:fs';
import { GroupCommit, describeOpenFailure, prepareDatabaseFile } from '@rsnotify/service-kit';
import { fileURLToPath } from 'node:url';
import type { SignatureMethod } from '@rsnotify/shared';
import { StoreError } from '../errors.js';
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
import type { BridgeRepository } from '../bridge-repository.js';
import { createSqliteBridgeRepository } from './bridge.js';

// Same relative path from src/store/sqlite and dist/store/sqlite.
const migrationsFolder = fileURLToPath(new URL('../../../drizzle', import.meta.url));

export { StoreError };

type SubscriptionRow = typeof schema.subscriptions.$inferSelect;

function toSubscription(row: SubscriptionRow, topicUrl: string): Subscription {
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

/** SQLite closes synchronously: callers need not await close(). */
export type SqliteHubRepository = Omit<HubRepository, 'close'> & { close(): void };

export function openSqliteRepository(file: string): SqliteHubRepository {
  return openSqliteStores(file).repository;
}

/** The hub repository and the bridge's store on one connection (one transaction can span both). */
export function openSqliteStores(file: string): {
  repository: SqliteHubRepository;
  bridge: BridgeRepository;
} {
  let sqlite: Database.Database;
  try {
    // Directory 0700 and file 0600 when created here (the file holds hub.secret values).
    if (!file.startsWith('file:')) prepareDatabaseFile(file);
    sqlite = new Database(file);
    // The file holds subscriber secrets: owner-only (the WAL and shm files inherit its mode).
    if (file !== ':memory:' && !file.startsWith('file:')) chmodSync(file, 0o600);
  } catch (err) {
    const why = describeOpenFailure(err);
    throw new StoreError('RSN_STORE_OPEN_FAILED', `cannot open hub database ${file}: ${why}`, {
      cause: err,
      details: { file, errno: (err as { code?: string }).code },
    });
  }
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const db: BetterSQLite3Database<typeof schema> = drizzle(sqlite, { schema });
  migrate(db, { migrationsFolder });
  return {
    repository: new SqliteRepository(sqlite, db),
    bridge: createSqliteBridgeRepository(sqlite),
  };
}

class SqliteRepository implements HubRepository {
  private readonly bumpTopic: Database.Statement<[number]>;
  private readonly topicByUrl: Database.Statement<[string]>;
  private readonly insertTopic: Database.Statement<[string, number]>;
  private readonly insertNotification: Database.Statement<
    [number, number, number, string, string, Buffer]
  >;
  private readonly selectNotification: Database.Statement<[number, number]>;
  private readonly updateCursor: Database.Statement<
    [number, number, number, number | null, number | null, string | null, number, number]
  >;
  private readonly insertGivenUp: Database.Statement<
    [number, number, string, number, string, number]
  >;
  private readonly topicIds = new Map<string, number>();
  private readonly appendTx: (
    batch: readonly NewNotification[],
  ) => { topicId: number; seq: number }[];
  private readonly dataVersion: Database.Statement<[]>;
  private readonly appends: GroupCommit<NewNotification, { topicId: number; seq: number }>;
  private readonly cursorsTx: (updates: readonly CursorUpdate[], now: number) => void;

  constructor(
    private readonly sqlite: Database.Database,
    private readonly db: BetterSQLite3Database<typeof schema>,
  ) {
    this.bumpTopic = sqlite
      .prepare('UPDATE topics SET last_seq = last_seq + 1 WHERE id = ? RETURNING last_seq')
      .pluck() as Database.Statement<[number]>;
    this.topicByUrl = sqlite.prepare('SELECT id FROM topics WHERE url = ?');
    this.insertTopic = sqlite.prepare(
      'INSERT INTO topics (url, last_seq, created_at) VALUES (?, 0, ?) RETURNING id',
    );
    this.insertNotification = sqlite.prepare(
      'INSERT INTO notifications (topic_id, seq, received_at, content_type, link_header, body) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.selectNotification = sqlite.prepare(
      'SELECT topic_id AS topicId, seq, received_at AS receivedAt, content_type AS contentType, link_header AS linkHeader, body FROM notifications WHERE topic_id = ? AND seq = ?',
    );
    this.updateCursor = sqlite.prepare(
      'UPDATE subscriptions SET delivered_seq = MAX(delivered_seq, ?), attempts = ?, next_attempt_at = ?, first_failed_at = ?, last_status = ?, last_error = ?, updated_at = ? WHERE id = ?',
    );
    this.insertGivenUp = sqlite.prepare(
      'INSERT INTO given_up (subscription_id, topic_id, callback, seq, reason, at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.dataVersion = sqlite.prepare('PRAGMA data_version').pluck() as Database.Statement<[]>;
    this.appends = new GroupCommit({
      commit: (batch) => this.appendTx(batch),
      closedError: () => new StoreError('RSN_STORE_UNAVAILABLE', 'the hub database is closed'),
    });
    this.appendTx = sqlite.transaction((batch: readonly NewNotification[]) =>
      batch.map((n) => {
        const topicId = this.ensureTopic(n.topicUrl, n.receivedAt);
        const seq = this.bumpTopic.get(topicId) as number;
        this.insertNotification.run(
          topicId,
          seq,
          n.receivedAt,
          n.contentType,
          n.linkHeader,
          n.body,
        );
        return { topicId, seq };
      }),
    );
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

  async addSource(s: {
    name: string;
    tokenHash: string;
    topicPrefixes: readonly string[];
    callbackPrefixes: readonly string[];
    now: number;
  }): Promise<SourceRecord> {
    return this.sqlite.transaction(() => {
      const existing = this.db
        .select()
        .from(schema.sources)
        .where(eq(schema.sources.name, s.name))
        .get();
      if (existing)
        throw new StoreError(
          'RSN_SOURCE_EXISTS',
          `a Source named ${JSON.stringify(s.name)} exists already`,
          { details: { name: s.name } },
        );
      const taken =
        s.topicPrefixes.length === 0
          ? []
          : this.db
              .select()
              .from(schema.sourcePrefixes)
              .where(inArray(schema.sourcePrefixes.prefix, [...s.topicPrefixes]))
              .all();
      if (taken.length > 0) {
        throw new StoreError(
          'RSN_PREFIX_TAKEN',
          `topic prefix ${taken[0]!.prefix} belongs to another Source`,
          { details: { prefix: taken[0]!.prefix } },
        );
      }
      const row = this.db
        .insert(schema.sources)
        .values({ name: s.name, tokenHash: s.tokenHash, createdAt: s.now })
        .returning()
        .get();
      for (const prefix of new Set(s.topicPrefixes))
        this.db.insert(schema.sourcePrefixes).values({ sourceId: row.id, prefix }).run();
      for (const prefix of new Set(s.callbackPrefixes))
        this.db.insert(schema.sourceCallbackPrefixes).values({ sourceId: row.id, prefix }).run();
      return {
        id: row.id,
        name: row.name,
        tokenHash: row.tokenHash,
        topicPrefixes: [...new Set(s.topicPrefixes)],
        callbackPrefixes: [...new Set(s.callbackPrefixes)],
        createdAt: row.createdAt,
      };
    })();
  }

  async removeSource(name: string): Promise<boolean> {
    const r = this.db.delete(schema.sources).where(eq(schema.sources.name, name)).run();
    return r.changes > 0;
  }

  async listSources(): Promise<SourceRecord[]> {
    const rows = this.db.select().from(schema.sources).orderBy(asc(schema.sources.name)).all();
    const prefixes = this.db.select().from(schema.sourcePrefixes).all();
    const callbacks = this.db.select().from(schema.sourceCallbackPrefixes).all();
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      tokenHash: r.tokenHash,
      createdAt: r.createdAt,
      topicPrefixes: prefixes.filter((p) => p.sourceId === r.id).map((p) => p.prefix),
      callbackPrefixes: callbacks.filter((p) => p.sourceId === r.id).map((p) => p.prefix),
    }));
  }

  externalChangeMarker(): number {
    return this.dataVersion.get() as number;
  }

  // --- topics and notifications ---------------------------------------------------------------

  /**
   * Group commit: publishes that arrive in the same turn of the event loop are written in one
   * transaction (one WAL commit), and each caller is answered only after that commit. Order within
   * the batch is arrival order, so seq order is still publish order per topic.
   */
  appendNotification(n: NewNotification): Promise<{ topicId: number; seq: number }> {
    return this.appends.submit(n);
  }

  async getNotification(topicId: number, seq: number): Promise<StoredNotification | undefined> {
    return this.selectNotification.get(topicId, seq) as StoredNotification | undefined;
  }

  async listTopics(): Promise<TopicRecord[]> {
    return this.db
      .select({ id: schema.topics.id, url: schema.topics.url, lastSeq: schema.topics.lastSeq })
      .from(schema.topics)
      .all();
  }

  async pruneNotifications(receivedBefore: number): Promise<number> {
    // A notification is kept while any subscription of its topic still has it ahead of its cursor (M-5).
    const r = this.sqlite
      .prepare(
        `
      DELETE FROM notifications
       WHERE received_at < ?
         AND seq <= COALESCE((SELECT MIN(s.delivered_seq) FROM subscriptions s WHERE s.topic_id = notifications.topic_id),
                             (SELECT t.last_seq FROM topics t WHERE t.id = notifications.topic_id))`,
      )
      .run(receivedBefore);
    return r.changes;
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
        const topic = this.db
          .select({ lastSeq: schema.topics.lastSeq })
          .from(schema.topics)
          .where(eq(schema.topics.id, topicId))
          .get()!;
        row = this.db
          .update(schema.subscriptions)
          .set({
            topicAsGiven: a.topicAsGiven,
            secret: a.secret ?? null,
            algorithm: a.algorithm,
            leaseSeconds: a.leaseSeconds,
            leaseExpiresAt: a.leaseExpiresAt,
            deliveredSeq: topic.lastSeq,
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
        const topic = this.db
          .select({ lastSeq: schema.topics.lastSeq })
          .from(schema.topics)
          .where(eq(schema.topics.id, topicId))
          .get()!;
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
            deliveredSeq: topic.lastSeq,
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

  async removeExpiredSubscriptions(now: number): Promise<Subscription[]> {
    const rows = this.db
      .delete(schema.subscriptions)
      .where(lte(schema.subscriptions.leaseExpiresAt, now))
      .returning()
      .all();
    if (rows.length === 0) return [];
    const urls = new Map(
      this.db
        .select({ id: schema.topics.id, url: schema.topics.url })
        .from(schema.topics)
        .where(inArray(schema.topics.id, [...new Set(rows.map((r) => r.topicId))]))
        .all()
        .map((t) => [t.id, t.url]),
    );
    return rows.map((r) => toSubscription(r, urls.get(r.topicId) ?? ''));
  }

  async countSubscriptions(now: number): Promise<SubscriptionCounts> {
    const row = this.sqlite
      .prepare(
        `SELECT
        (SELECT COUNT(*) FROM subscriptions WHERE lease_expires_at > ?) AS active,
        (SELECT COUNT(*) FROM subscriptions WHERE lease_expires_at <= ?) AS expired,
        (SELECT COUNT(*) FROM intents) AS pending`,
      )
      .get(now, now) as SubscriptionCounts;
    return row;
  }

  async countGivenUp(): Promise<number> {
    return (this.sqlite.prepare('SELECT COUNT(*) AS n FROM given_up').get() as { n: number }).n;
  }

  // --- intents --------------------------------------------------------------------------------

  async addIntent(i: NewIntent): Promise<Intent> {
    return this.sqlite.transaction(() => {
      this.db
        .delete(schema.intents)
        .where(
          and(eq(schema.intents.topicUrl, i.topicUrl), eq(schema.intents.callback, i.callback)),
        )
        .run();
      const row = this.db
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
        .returning()
        .get();
      return toIntent(row);
    })();
  }

  async dueIntents(now: number, limit: number): Promise<Intent[]> {
    return this.db
      .select()
      .from(schema.intents)
      .where(lte(schema.intents.nextAttemptAt, now))
      .orderBy(asc(schema.intents.id))
      .limit(limit)
      .all()
      .map(toIntent);
  }

  async nextIntentDueAt(): Promise<number | undefined> {
    const row = this.db
      .select({ at: sql<number | null>`MIN(${schema.intents.nextAttemptAt})` })
      .from(schema.intents)
      .get();
    return row?.at ?? undefined;
  }

  async deleteIntent(id: number): Promise<void> {
    this.db.delete(schema.intents).where(eq(schema.intents.id, id)).run();
  }

  async rescheduleIntent(id: number, attempts: number, nextAttemptAt: number): Promise<void> {
    this.db
      .update(schema.intents)
      .set({ attempts, nextAttemptAt })
      .where(eq(schema.intents.id, id))
      .run();
  }

  async ping(): Promise<void> {
    this.sqlite.prepare('SELECT 1').get();
  }

  close(): void {
    if (this.sqlite.open) this.appends.close();
    if (this.sqlite.open) this.sqlite.close();
  }
}
