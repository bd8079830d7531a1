// The SQLite engine of the subscriber store: better-sqlite3 (synchronous) under the async contract,
// WAL for concurrent readers (the `status` command reads while the daemon writes), synchronous=FULL for
// the commits that hold an inbox row so it survives power loss (promise 2; see group-commit.ts),
// migrations applied at open.
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describeOpenFailure, prepareDatabaseFile } from '@rsnotify/service-kit';
import { StoreError } from '../../errors/index.js';
import { and, count, desc, eq, inArray, isNotNull, lt, ne, sql } from 'drizzle-orm';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import * as schema from '../schema.js';
import { GroupCommit } from './group-commit.js';
import { StatementCache, updateSql, upsertSql } from './statements.js';
import {
  OPEN_INBOX_STATES,
  type CatchUpReason,
  type CatchUpRecord,
  type CatchUpState,
  type EventRecord,
  type InboxRow,
  type InboxState,
  type NewInboxRow,
  type NewSubscription,
  type PositionRecord,
  type ResourceRecord,
  type SourceCounters,
  type SourcePatch,
  type SourceRecord,
  type SubscriberRepository,
  type SubscriptionPatch,
  type SubscriptionRecord,
} from '../repository.js';

const migrationsFolder = fileURLToPath(new URL('../../../drizzle', import.meta.url));

type Db = BetterSQLite3Database<typeof schema>;

const RESOURCE_UPSERT = upsertSql(
  schema.resources,
  'resources',
  ['sourceId', 'uri', 'path', 'sha256', 'length', 'lastChangeKey', 'updatedAt'],
  ['sourceId', 'uri'],
);

/** null -> undefined, so records carry optional fields rather than nulls. */
function clean<T extends object>(row: T): { [K in keyof T]: Exclude<T[K], null> | undefined } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) if (v !== null) out[k] = v;
  return out as { [K in keyof T]: Exclude<T[K], null> | undefined };
}

/** undefined -> null for patches, only for keys present. */
function nullify<T extends object>(patch: T): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(patch)) out[k] = v === undefined ? null : v;
  return out;
}

export interface OpenStoreOptions {
  readonly file: string;
  readonly readonly?: boolean;
}

export function openSqliteStore(options: OpenStoreOptions): SqliteSubscriberStore {
  return new SqliteSubscriberStore(options);
}

export class SqliteSubscriberStore implements SubscriberRepository {
  readonly sqlite: Database.Database;
  private readonly db: Db;
  private readonly group: GroupCommit;
  private readonly statements: StatementCache;

  constructor(options: OpenStoreOptions) {
    try {
      // Directory 0700 and file 0600 when created here (the file holds callback tokens and secrets).
      if (!options.readonly) prepareDatabaseFile(options.file);
      this.sqlite = new Database(
        options.file,
        options.readonly ? { readonly: true, fileMustExist: true } : {},
      );
    } catch (err) {
      throw new StoreError(
        'RSN_STORE_OPEN_FAILED',
        `cannot open database ${options.file}: ${describeOpenFailure(err)}`,
        {
          cause: err,
          details: { file: options.file, errno: (err as { code?: string }).code },
        },
      );
    }
    this.sqlite.pragma('busy_timeout = 5000');
    if (!options.readonly) {
      this.sqlite.pragma('journal_mode = WAL');
      this.sqlite.pragma('synchronous = FULL');
      this.sqlite.pragma('foreign_keys = ON');
    }
    this.db = drizzle(this.sqlite, { schema });
    if (!options.readonly) migrate(this.db, { migrationsFolder });
    this.group = new GroupCommit(this.sqlite);
    this.statements = new StatementCache(this.sqlite);
  }

  // ---- sources
  async ensureSource(name: string, url: string): Promise<SourceRecord> {
    const existing = this.db
      .select()
      .from(schema.sources)
      .where(eq(schema.sources.name, name))
      .get();
    if (existing) {
      if (existing.url !== url) {
        // A new URL means new discovery: forget what the old one led to.
        this.db
          .update(schema.sources)
          .set({ url, mode: 'unknown', discoveredAt: null })
          .where(eq(schema.sources.id, existing.id))
          .run();
      }
      return toSource(
        this.db.select().from(schema.sources).where(eq(schema.sources.id, existing.id)).get()!,
      );
    }
    return toSource(this.db.insert(schema.sources).values({ name, url }).returning().get());
  }

  async getSource(name: string): Promise<SourceRecord | undefined> {
    const row = this.db.select().from(schema.sources).where(eq(schema.sources.name, name)).get();
    return row && toSource(row);
  }

  async listSources(): Promise<SourceRecord[]> {
    return this.db.select().from(schema.sources).orderBy(schema.sources.name).all().map(toSource);
  }

  async updateSource(id: number, patch: SourcePatch): Promise<void> {
    this.db.update(schema.sources).set(nullify(patch)).where(eq(schema.sources.id, id)).run();
  }

  async countIgnoredDelivery(sourceId: number): Promise<void> {
    this.db
      .update(schema.sources)
      .set({ ignoredDeliveries: sql`${schema.sources.ignoredDeliveries} + 1` })
      .where(eq(schema.sources.id, sourceId))
      .run();
  }

  // ---- subscriptions
  async insertSubscription(sub: NewSubscription): Promise<SubscriptionRecord> {
    // Committed before the subscribe POST is sent (WS-7): the verification may beat the 202.
    const row = this.db
      .insert(schema.subscriptions)
      .values({
        ...nullify(sub),
        updatedAt: sub.requestedAt,
      } as typeof schema.subscriptions.$inferInsert)
      .returning()
      .get();
    return toSubscription(row);
  }

  async updateSubscription(
    id: number,
    patch: SubscriptionPatch,
  ): Promise<SubscriptionRecord | undefined> {
    const row = this.db
      .update(schema.subscriptions)
      .set({ ...nullify(patch), updatedAt: patch.updatedAt ?? Date.now() })
      .where(eq(schema.subscriptions.id, id))
      .returning()
      .get();
    return row && toSubscription(row);
  }

  private readonly byToken = () =>
    this.sqlite.prepare('SELECT * FROM subscriptions WHERE callback_token = ?');
  private byTokenStmt?: Database.Statement;

  async findSubscriptionByToken(token: string): Promise<SubscriptionRecord | undefined> {
    // Hot path (every delivery): a raw prepared statement, no query building.
    this.byTokenStmt ??= this.byToken();
    const row = this.byTokenStmt.get(token) as Record<string, unknown> | undefined;
    if (!row) return undefined;
    return toSubscription({
      id: row.id as number,
      sourceId: row.source_id as number,
      hub: row.hub as string,
      topic: row.topic as string,
      callbackToken: row.callback_token as string,
      callbackUrl: row.callback_url as string,
      secret: row.secret as string | null,
      state: row.state as string,
      requestedLeaseSeconds: row.requested_lease_seconds as number | null,
      leaseSeconds: row.lease_seconds as number | null,
      requestedAt: row.requested_at as number,
      verifiedAt: row.verified_at as number | null,
      leaseExpiresAt: row.lease_expires_at as number | null,
      renewAt: row.renew_at as number | null,
      renewsId: row.renews_id as number | null,
      attempt: row.attempt as number,
      lastError: row.last_error as string | null,
      deniedReason: row.denied_reason as string | null,
      updatedAt: row.updated_at as number,
    });
  }

  async listSubscriptions(sourceId: number): Promise<SubscriptionRecord[]> {
    return this.db
      .select()
      .from(schema.subscriptions)
      .where(eq(schema.subscriptions.sourceId, sourceId))
      .orderBy(schema.subscriptions.id)
      .all()
      .map(toSubscription);
  }

  // ---- inbox
  private insertInboxStmt?: Database.Statement;

  insertInbox(row: NewInboxRow): Promise<number> {
    this.insertInboxStmt ??= this.sqlite.prepare(
      'INSERT INTO inbox (source_id, subscription_id, received_at, content_type, body, signature, state) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const stmt = this.insertInboxStmt;
    return this.group.run(
      () =>
        Number(
          stmt.run(
            row.sourceId,
            row.subscriptionId ?? null,
            row.receivedAt,
            row.contentType ?? null,
            row.body,
            row.signature,
            'new',
          ).lastInsertRowid,
        ),
      true,
    );
  }

  async getInbox(id: number): Promise<InboxRow | undefined> {
    const row = this.db.select().from(schema.inbox).where(eq(schema.inbox.id, id)).get();
    return row && toInbox(row);
  }

  async listOpenInbox(sourceId: number): Promise<InboxRow[]> {
    return this.db
      .select()
      .from(schema.inbox)
      .where(
        and(
          eq(schema.inbox.sourceId, sourceId),
          inArray(schema.inbox.state, [...OPEN_INBOX_STATES]),
        ),
      )
      .orderBy(schema.inbox.id)
      .all()
      .map(toInbox);
  }

  async updateInbox(
    id: number,
    patch: { state?: InboxState; from?: string; until?: string; error?: string },
  ): Promise<void> {
    // Like the query builder's set(): keys whose value is undefined are left alone.
    const keys = Object.keys(patch).filter((k) => patch[k as keyof typeof patch] !== undefined);
    if (keys.length === 0) return;
    const stmt = this.statements.get(updateSql(schema.inbox, 'inbox', keys, '"id" = ?'));
    const values = keys.map((k) => patch[k as keyof typeof patch]);
    await this.group.run(() => stmt.run(...values, id));
  }

  async setInboxState(ids: readonly number[], state: InboxState): Promise<void> {
    if (ids.length === 0) return;
    await this.group.run(() =>
      this.db
        .update(schema.inbox)
        .set({ state })
        .where(inArray(schema.inbox.id, [...ids]))
        .run(),
    );
  }

  async pruneInbox(sourceId: number, before: number): Promise<number> {
    const res = this.db
      .delete(schema.inbox)
      .where(
        and(
          eq(schema.inbox.sourceId, sourceId),
          inArray(schema.inbox.state, ['applied', 'superseded', 'invalid']),
          lt(schema.inbox.receivedAt, before),
        ),
      )
      .run();
    return res.changes;
  }

  async pruneHistory(sourceId: number, before: number): Promise<number> {
    return this.group.run(() => {
      const events = this.db
        .delete(schema.events)
        .where(and(eq(schema.events.sourceId, sourceId), lt(schema.events.at, before)))
        .run();
      const catchUps = this.db
        .delete(schema.catchups)
        .where(
          and(
            eq(schema.catchups.sourceId, sourceId),
            ne(schema.catchups.state, 'running'),
            lt(schema.catchups.startedAt, before),
          ),
        )
        .run();
      return events.changes + catchUps.changes;
    });
  }

  // ---- position
  async getPosition(sourceId: number): Promise<PositionRecord | undefined> {
    const row = this.db
      .select()
      .from(schema.position)
      .where(eq(schema.position.sourceId, sourceId))
      .get();
    if (!row) return undefined;
    const { updatedAt: _u, ...rest } = clean(row);
    return rest as PositionRecord;
  }

  async savePosition(sourceId: number, patch: Omit<PositionRecord, 'sourceId'>): Promise<void> {
    const values: Record<string, unknown> = { sourceId, ...nullify(patch), updatedAt: Date.now() };
    const keys = Object.keys(values);
    const stmt = this.statements.get(upsertSql(schema.position, 'position', keys, ['sourceId']));
    const args = keys.map((k) => values[k]);
    await this.group.run(() => stmt.run(...args));
  }

  // ---- resources (the mirror's ResourceStateStore sits on these)
  private getResourceStmt?: Database.Statement;

  async getResource(sourceId: number, uri: string): Promise<ResourceRecord | undefined> {
    this.getResourceStmt ??= this.sqlite.prepare(
      'SELECT uri, path, sha256, length, last_change_key FROM resources WHERE source_id = ? AND uri = ?',
    );
    const row = this.getResourceStmt.get(sourceId, uri) as
      | {
          uri: string;
          path: string;
          sha256: string | null;
          length: number | null;
          last_change_key: string | null;
        }
      | undefined;
    if (!row) return undefined;
    return clean({
      uri: row.uri,
      path: row.path,
      sha256: row.sha256,
      length: row.length,
      lastChangeKey: row.last_change_key,
    }) as ResourceRecord;
  }

  async setResource(sourceId: number, uri: string, rec: ResourceRecord | null): Promise<void> {
    const now = Date.now();
    await this.group.run(() => {
      if (rec === null) {
        this.statements
          .get('DELETE FROM resources WHERE source_id = ? AND uri = ?')
          .run(sourceId, uri);
        return;
      }
      this.statements
        .get(RESOURCE_UPSERT)
        .run(
          sourceId,
          uri,
          rec.path,
          rec.sha256 ?? null,
          rec.length ?? null,
          rec.lastChangeKey ?? null,
          now,
        );
    });
  }

  async listResourceUris(sourceId: number): Promise<string[]> {
    return this.db
      .select({ uri: schema.resources.uri })
      .from(schema.resources)
      .where(eq(schema.resources.sourceId, sourceId))
      .all()
      .map((r) => r.uri);
  }

  async listResourcePaths(sourceId: number): Promise<{ uri: string; path: string }[]> {
    return this.db
      .select({ uri: schema.resources.uri, path: schema.resources.path })
      .from(schema.resources)
      .where(eq(schema.resources.sourceId, sourceId))
      .all();
  }

  async setResourcePath(sourceId: number, uri: string, path: string): Promise<void> {
    await this.group.run(() => {
      this.db
        .update(schema.resources)
        .set({ path })
        .where(and(eq(schema.resources.sourceId, sourceId), eq(schema.resources.uri, uri)))
        .run();
    });
  }

  // ---- events
  async addEvents(sourceId: number, events: readonly EventRecord[]): Promise<void> {
    if (events.length === 0) return;
    let applied = 0;
    let failed = 0;
    for (const e of events) {
      if (e.outcome === 'written' || e.outcome === 'deleted') applied++;
      else if (e.outcome === 'failed') failed++;
    }
    await this.group.run(() => {
      for (let i = 0; i < events.length; i += 200) {
        this.db
          .insert(schema.events)
          .values(
            events
              .slice(i, i + 200)
              .map((e) => ({ sourceId, ...nullify(e) }) as typeof schema.events.$inferInsert),
          )
          .run();
      }
      if (applied > 0 || failed > 0) {
        this.db
          .update(schema.sources)
          .set({
            changesApplied: sql`${schema.sources.changesApplied} + ${applied}`,
            changesFailed: sql`${schema.sources.changesFailed} + ${failed}`,
          })
          .where(eq(schema.sources.id, sourceId))
          .run();
      }
    });
  }

  async recentEvents(sourceId: number, limit: number): Promise<EventRecord[]> {
    return this.db
      .select()
      .from(schema.events)
      .where(eq(schema.events.sourceId, sourceId))
      .orderBy(desc(schema.events.id))
      .limit(limit)
      .all()
      .map((r) => {
        const { id: _i, sourceId: _s, ...rest } = clean(r);
        return rest as EventRecord;
      });
  }

  // ---- catch-ups
  async startCatchUp(
    sourceId: number,
    reason: CatchUpReason,
    from: string | undefined,
    to: string | undefined,
    now: number,
  ): Promise<number> {
    return this.group.run(() => {
      this.db
        .update(schema.sources)
        .set({ catchUpCount: sql`${schema.sources.catchUpCount} + 1` })
        .where(eq(schema.sources.id, sourceId))
        .run();
      return this.db
        .insert(schema.catchups)
        .values({
          sourceId,
          reason,
          from: from ?? null,
          to: to ?? null,
          state: 'running',
          startedAt: now,
        })
        .returning({ id: schema.catchups.id })
        .get().id;
    });
  }

  async finishCatchUp(
    id: number,
    patch: {
      state: CatchUpState;
      changes?: number;
      lastError?: string;
      finishedAt: number;
      to?: string;
    },
  ): Promise<void> {
    await this.group.run(() =>
      this.db.update(schema.catchups).set(patch).where(eq(schema.catchups.id, id)).run(),
    );
  }

  async lastCatchUp(sourceId: number): Promise<CatchUpRecord | undefined> {
    const row = this.db
      .select()
      .from(schema.catchups)
      .where(eq(schema.catchups.sourceId, sourceId))
      .orderBy(desc(schema.catchups.id))
      .limit(1)
      .get();
    return row && (clean(row) as CatchUpRecord);
  }

  async counters(sourceId: number): Promise<SourceCounters> {
    const open = this.db
      .select({ n: count() })
      .from(schema.inbox)
      .where(
        and(
          eq(schema.inbox.sourceId, sourceId),
          inArray(schema.inbox.state, [...OPEN_INBOX_STATES]),
        ),
      )
      .get();
    // Lexical untils of one Source share one format in practice; the daemon computes exact lag itself.
    const newest = this.db
      .select({ until: schema.inbox.until })
      .from(schema.inbox)
      .where(and(eq(schema.inbox.sourceId, sourceId), isNotNull(schema.inbox.until)))
      .orderBy(desc(schema.inbox.id))
      .limit(1)
      .get();
    const totals = this.db
      .select({
        applied: schema.sources.changesApplied,
        failed: schema.sources.changesFailed,
        catchUps: schema.sources.catchUpCount,
      })
      .from(schema.sources)
      .where(eq(schema.sources.id, sourceId))
      .get();
    const res = this.db
      .select({ n: count() })
      .from(schema.resources)
      .where(eq(schema.resources.sourceId, sourceId))
      .get();
    return {
      openInbox: open?.n ?? 0,
      newestUntil: newest?.until ?? undefined,
      catchUps: totals?.catchUps ?? 0,
      failedEvents: totals?.failed ?? 0,
      appliedEvents: totals?.applied ?? 0,
      resources: res?.n ?? 0,
    };
  }

  async flush(): Promise<void> {
    this.group.flush();
  }

  async close(): Promise<void> {
    this.group.close();
    this.sqlite.close();
  }
}

function toSource(row: typeof schema.sources.$inferSelect): SourceRecord {
  return {
    ...clean(row),
    mode: row.mode as SourceRecord['mode'],
    subscriptionDisabled: row.subscriptionDisabled,
    ignoredDeliveries: row.ignoredDeliveries,
  } as SourceRecord;
}

function toSubscription(row: typeof schema.subscriptions.$inferSelect): SubscriptionRecord {
  return clean(row) as unknown as SubscriptionRecord;
}

function toInbox(row: typeof schema.inbox.$inferSelect): InboxRow {
  return clean(row) as unknown as InboxRow;
}
