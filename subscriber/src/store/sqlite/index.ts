// The SQLite engine of the subscriber store: better-sqlite3 (synchronous) under the async contract,
// WAL for concurrent readers (the `status` command reads while the daemon writes), synchronous=FULL for
// the commits that hold an inbox row so it survives power loss (promise 2; see group-commit.ts),
// migrations applied at open. The queries live by concept: sources.ts, subscriptions.ts, inbox.ts,
// mirror-state.ts (position and resources), history.ts (events, catch-ups, counters). WAL checkpoints
// run on a worker thread with its own connection (service-kit's checkpointer), not inside a commit
// on the event loop.
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import {
  describeOpenFailure,
  prepareDatabaseFile,
  startCheckpointer,
  SQLITE_AUTOCHECKPOINT_PAGES,
  type Checkpointer,
} from '@rsnotify/service-kit';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { StoreError } from '../../errors/index.js';
import * as schema from '../schema.js';
import type {
  CatchUpReason,
  CatchUpRecord,
  CatchUpState,
  EventRecord,
  GapRecord,
  InboxRow,
  InboxState,
  NewInboxRow,
  NewSubscription,
  PositionRecord,
  ReconciliationRecord,
  ResourceRecord,
  SourceActivity,
  SourceCounters,
  SourcePatch,
  SourceRecord,
  SubscriberRepository,
  SubscriptionPatch,
  SubscriptionRecord,
  WriteOptions,
} from '../repository.js';
import type { StoreContext } from './context.js';
import { GroupCommit } from './group-commit.js';
import { HistoryQueries } from './history.js';
import { InboxQueries } from './inbox.js';
import { MirrorStateQueries } from './mirror-state.js';
import { SourceQueries } from './sources.js';
import { StatementCache } from './statements.js';
import { SubscriptionQueries } from './subscriptions.js';

const migrationsFolder = fileURLToPath(new URL('../../../drizzle', import.meta.url));
/** The driver the checkpoint worker loads (service-kit has none of its own). */
const driver = createRequire(import.meta.url).resolve('better-sqlite3');

export interface OpenStoreOptions {
  readonly file: string;
  readonly readonly?: boolean;
  /** The checkpoint worker failed: the connection checkpoints by itself again (the daemon logs it). */
  readonly onCheckpointFailed?: (reason: string) => void;
  /** How long a trailing write waits for others to share its commit; default TRAILING_COMMIT_MS. */
  readonly trailingCommitMs?: number;
}

export function openSqliteStore(options: OpenStoreOptions): SqliteSubscriberStore {
  return new SqliteSubscriberStore(options);
}

function openDatabase(options: OpenStoreOptions): Database.Database {
  try {
    // Directory 0700 and file 0600 when created here (the file holds callback tokens and secrets).
    if (!options.readonly) prepareDatabaseFile(options.file);
    return new Database(
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
}

export class SqliteSubscriberStore implements SubscriberRepository {
  readonly sqlite: Database.Database;
  private readonly group: GroupCommit;
  private readonly checkpointer?: Checkpointer;
  private readonly sources: SourceQueries;
  private readonly subscriptions: SubscriptionQueries;
  private readonly inbox: InboxQueries;
  private readonly mirrorState: MirrorStateQueries;
  private readonly history: HistoryQueries;

  constructor(options: OpenStoreOptions) {
    this.sqlite = openDatabase(options);
    this.sqlite.pragma('busy_timeout = 5000');
    let wal = false;
    if (!options.readonly) {
      wal = this.sqlite.pragma('journal_mode = WAL', { simple: true }) === 'wal';
      this.sqlite.pragma('synchronous = FULL');
      this.sqlite.pragma('foreign_keys = ON');
    }
    const db = drizzle(this.sqlite, { schema });
    if (!options.readonly) migrate(db, { migrationsFolder });
    // Durability with checkpoints on another connection (the 202 waits for an fdatasync of the WAL,
    // wal-sync.ts; WS-11 / promise 2): a PASSIVE checkpoint only reads WAL frames and writes them
    // into the database file. It never truncates or rewrites the WAL, nor waits for (or ends) a
    // reader's snapshot: it copies only frames that every open read transaction already sees, so a
    // reader of an older snapshot still finds its pages. The worker's connection keeps SQLite's
    // default synchronous (not OFF), so it syncs the WAL before copying and the database file after.
    // The WAL is rewritten only by this connection, when a write restarts it from its start,
    // and SQLite restarts it only after a checkpoint copied every frame of it and then synced the
    // database file (nBackfill is raised only after that sync). So a frame is overwritten only once
    // it is durable in the database file, and an fdatasync that covers a commit keeps it however
    // the checkpoints and the syncs interleave, as with the automatic checkpoint before.
    this.checkpointer = wal
      ? startCheckpointer(this.sqlite, {
          file: options.file,
          driver,
          // Intake commits once per WAL sync, faster than a checkpoint on another connection
          // completes: the WAL restarts only when this connection catches up (checkpointer.ts).
          // Each catch-up syncs twice on the event loop, so it waits for 4x SQLite's WAL length.
          restartPages: 4 * SQLITE_AUTOCHECKPOINT_PAGES,
          ...(options.onCheckpointFailed ? { onFailed: options.onCheckpointFailed } : {}),
        })
      : undefined;
    // SQLite names the WAL after the database's real path (symbolic links resolved).
    this.group = new GroupCommit(
      this.sqlite,
      wal ? `${realpathSync(options.file)}-wal` : undefined,
      options.trailingCommitMs,
    );
    const ctx: StoreContext = {
      db,
      sqlite: this.sqlite,
      group: this.group,
      statements: new StatementCache(this.sqlite),
    };
    this.sources = new SourceQueries(ctx);
    this.subscriptions = new SubscriptionQueries(ctx);
    this.inbox = new InboxQueries(ctx);
    this.mirrorState = new MirrorStateQueries(ctx);
    this.history = new HistoryQueries(ctx);
  }

  // ---- sources
  ensureSource(name: string, url: string): Promise<SourceRecord> {
    return this.sources.ensureSource(name, url);
  }
  getSource(name: string): Promise<SourceRecord | undefined> {
    return this.sources.getSource(name);
  }
  listSources(): Promise<SourceRecord[]> {
    return this.sources.listSources();
  }
  updateSource(id: number, patch: SourcePatch): Promise<void> {
    return this.sources.updateSource(id, patch);
  }
  countIgnoredDelivery(sourceId: number): Promise<void> {
    return this.sources.countIgnoredDelivery(sourceId);
  }
  recordGap(sourceId: number, gap: GapRecord): Promise<void> {
    return this.sources.recordGap(sourceId, gap);
  }
  recordReconciliation(sourceId: number, rec: ReconciliationRecord): Promise<void> {
    return this.sources.recordReconciliation(sourceId, rec);
  }
  activity(sourceId: number): Promise<SourceActivity> {
    return this.sources.activity(sourceId);
  }

  // ---- subscriptions
  insertSubscription(sub: NewSubscription): Promise<SubscriptionRecord> {
    return this.subscriptions.insertSubscription(sub);
  }
  updateSubscription(
    id: number,
    patch: SubscriptionPatch,
  ): Promise<SubscriptionRecord | undefined> {
    return this.subscriptions.updateSubscription(id, patch);
  }
  findSubscriptionByToken(token: string): Promise<SubscriptionRecord | undefined> {
    return this.subscriptions.findSubscriptionByToken(token);
  }
  listSubscriptions(sourceId: number): Promise<SubscriptionRecord[]> {
    return this.subscriptions.listSubscriptions(sourceId);
  }

  // ---- inbox
  insertInbox(row: NewInboxRow, onCommitted?: (id: number) => void): Promise<number> {
    return this.inbox.insertInbox(row, onCommitted);
  }
  getInbox(id: number): Promise<InboxRow | undefined> {
    return this.inbox.getInbox(id);
  }
  listOpenInbox(
    sourceId: number,
    page?: { readonly afterId: number; readonly limit: number },
  ): Promise<InboxRow[]> {
    return this.inbox.listOpenInbox(sourceId, page);
  }
  listInboxRange(
    sourceId: number,
    fromId: number,
    toId: number,
    limit: number,
  ): Promise<InboxRow[]> {
    return this.inbox.listInboxRange(sourceId, fromId, toId, limit);
  }
  updateInbox(
    id: number,
    patch: { state?: InboxState; from?: string; until?: string; error?: string },
    options?: WriteOptions,
  ): Promise<void> {
    return this.inbox.updateInbox(id, patch, options);
  }
  setInboxState(ids: readonly number[], state: InboxState): Promise<void> {
    return this.inbox.setInboxState(ids, state);
  }
  pruneInbox(sourceId: number, before: number): Promise<number> {
    return this.inbox.pruneInbox(sourceId, before);
  }

  // ---- position and resources
  getPosition(sourceId: number): Promise<PositionRecord | undefined> {
    return this.mirrorState.getPosition(sourceId);
  }
  savePosition(
    sourceId: number,
    patch: Omit<PositionRecord, 'sourceId'>,
    options?: WriteOptions,
  ): Promise<void> {
    return this.mirrorState.savePosition(sourceId, patch, options);
  }
  getResource(sourceId: number, uri: string): Promise<ResourceRecord | undefined> {
    return this.mirrorState.getResource(sourceId, uri);
  }
  setResource(sourceId: number, uri: string, rec: ResourceRecord | null): Promise<void> {
    return this.mirrorState.setResource(sourceId, uri, rec);
  }
  listResourceUris(sourceId: number): Promise<string[]> {
    return this.mirrorState.listResourceUris(sourceId);
  }
  listResourcePaths(sourceId: number): Promise<{ uri: string; path: string }[]> {
    return this.mirrorState.listResourcePaths(sourceId);
  }
  setResourcePath(sourceId: number, uri: string, path: string): Promise<void> {
    return this.mirrorState.setResourcePath(sourceId, uri, path);
  }

  // ---- history (events, catch-ups) and counters
  addEvents(
    sourceId: number,
    events: readonly EventRecord[],
    options?: WriteOptions,
  ): Promise<void> {
    return this.history.addEvents(sourceId, events, options);
  }
  recentEvents(sourceId: number, limit: number): Promise<EventRecord[]> {
    return this.history.recentEvents(sourceId, limit);
  }
  pruneHistory(sourceId: number, before: number): Promise<number> {
    return this.history.pruneHistory(sourceId, before);
  }
  startCatchUp(
    sourceId: number,
    reason: CatchUpReason,
    from: string | undefined,
    to: string | undefined,
    now: number,
  ): Promise<number> {
    return this.history.startCatchUp(sourceId, reason, from, to, now);
  }
  finishCatchUp(
    id: number,
    patch: {
      state: CatchUpState;
      changes?: number;
      lastError?: string;
      finishedAt: number;
      to?: string;
    },
  ): Promise<void> {
    return this.history.finishCatchUp(id, patch);
  }
  lastCatchUp(sourceId: number): Promise<CatchUpRecord | undefined> {
    return this.history.lastCatchUp(sourceId);
  }
  counters(sourceId: number): Promise<SourceCounters> {
    return this.history.counters(sourceId);
  }

  async flush(): Promise<void> {
    this.group.flush();
  }

  commitTrailing(): void {
    this.group.commitTrailing();
  }

  async close(): Promise<void> {
    await this.group.close();
    // The worker's connection closes first, so this one is the last: it checkpoints and removes the
    // WAL as SQLite does at the last close.
    await this.checkpointer?.stop();
    this.sqlite.close();
  }
}
