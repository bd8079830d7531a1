// Group commit (the shared helper of @rsnotify/service-kit) for the subscriber's SQLite store.
// Every transaction commits with synchronous=NORMAL, which in WAL mode survives a process crash
// without an fsync. A durable write (an inbox row, WS-11 / promise 2) is answered only after the
// WAL is fsync'd off the event loop (wal-sync.ts), so the main thread goes on receiving and
// applying while the disk syncs. Durable writes are batched by the disk: those arriving while a
// sync is in flight share one transaction once it ends, then one sync (few, large commits, so the
// WAL grows per batch rather than per row). WAL checkpoints run on a worker thread with its own
// connection, not inside these commits (index.ts says why that keeps the syncs' guarantee).
// Everything else (positions, states, resource rows: all recomputable by replaying the inbox, which
// is idempotent) is committed a turn of the event loop later and answered at its commit; a trailing
// write (nobody waits for it before going on: the runner's records of each applied notification)
// waits up to TRAILING_COMMIT_MS for company, so a burst commits its records every few
// milliseconds rather than once per notification (each commit rewrites the inbox, index, position
// and totals pages it touches: ~32 KiB of WAL per notification when each had its own); once the
// runner has nothing more queued it calls commitTrailing(), so no company that is not coming is
// waited for. Without a WAL file to sync (a database not in WAL mode) durable writes commit with
// synchronous=FULL on the main thread instead. A failing write is isolated by the helper.
import type Database from 'better-sqlite3';
import { GroupCommit as SharedGroupCommit, nextTurn } from '@rsnotify/service-kit';
import { StoreError } from '../../errors/index.js';
import type { WriteOptions } from '../repository.js';
import { WalSync } from './wal-sync.js';

type Write = () => unknown;

/** How long a trailing write may wait for others to share its commit. */
export const TRAILING_COMMIT_MS = 10;

export class GroupCommit {
  private readonly group: SharedGroupCommit<Write, unknown>;
  private readonly durableGroup: SharedGroupCommit<Write, unknown>;
  private readonly wal?: WalSync;
  /** The window of the trailing writes queued (close() commits them and stops it). */
  private trailingTimer?: NodeJS.Timeout;
  /** Durable writes not yet answered (committed or not): close() waits for them. */
  private readonly durable = new Set<Promise<unknown>>();

  constructor(
    private readonly sqlite: Database.Database,
    walFile?: string,
    trailingCommitMs = TRAILING_COMMIT_MS,
  ) {
    const closedError = (): Error => new StoreError('RSN_STORE_CLOSED', 'store closed');
    const wal = walFile ? new WalSync(walFile) : undefined;
    this.wal = wal;
    this.sqlite.pragma('synchronous = NORMAL');
    this.group = new SharedGroupCommit<Write, unknown>({
      commit: (batch) => this.commit(batch),
      deferredSchedule: (flush) => {
        this.trailingTimer = setTimeout(flush, trailingCommitMs);
      },
      closedError,
    });
    this.durableGroup = new SharedGroupCommit<Write, unknown>({
      commit: (batch) => (wal ? this.commit(batch) : this.commitFull(batch)),
      schedule: wal ? (flush) => wal.whenIdle(() => nextTurn(flush)) : nextTurn,
      closedError,
    });
  }

  run<T>(fn: () => T, options?: WriteOptions): Promise<T> {
    return this.group.submit(fn, options?.trailing === true) as Promise<T>;
  }

  /**
   * A write that must survive power loss: resolves once it is on disk. `onCommitted` is told its
   * result as soon as the transaction committed (visible, and safe from a process crash), while
   * the fsync may still be running; work that is idempotent on replay can start from there.
   */
  runDurable<T>(fn: () => T, onCommitted?: (result: T) => void): Promise<T> {
    const write = this.commitAndSync(fn, onCommitted);
    this.durable.add(write);
    const done = (): void => {
      this.durable.delete(write);
    };
    write.then(done, done);
    return write;
  }

  private async commitAndSync<T>(fn: () => T, onCommitted?: (result: T) => void): Promise<T> {
    const value = (await this.durableGroup.submit(fn)) as T;
    if (!this.wal) return value;
    // Read before yielding: the sync this write needs must start after the commit that holds it.
    const commit = this.wal.commits;
    onCommitted?.(value);
    await this.wal.sync(commit);
    return value;
  }

  private commit(batch: readonly Write[]): unknown[] {
    const results = this.sqlite.transaction(() => batch.map((w) => w()))();
    this.wal?.committed();
    return results;
  }

  private commitFull(batch: readonly Write[]): unknown[] {
    this.sqlite.pragma('synchronous = FULL');
    try {
      return this.sqlite.transaction(() => batch.map((w) => w()))();
    } finally {
      this.sqlite.pragma('synchronous = NORMAL');
    }
  }

  flush(): void {
    this.group.flush();
    this.durableGroup.flush();
  }

  /**
   * Commits the writes that are not durable now, trailing ones included; durable ones keep their
   * turn (the WAL sync).
   */
  commitTrailing(): void {
    this.group.flush();
  }

  /** Writes what is queued, refuses further writes, and waits for the syncs in flight. */
  async close(): Promise<void> {
    this.group.close();
    clearTimeout(this.trailingTimer);
    this.durableGroup.close();
    await Promise.allSettled([...this.durable]);
    await this.wal?.close();
  }
}
