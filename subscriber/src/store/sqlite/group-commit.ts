// Group commit (the shared helper of @rsnotify/service-kit) for the subscriber's SQLite store:
// writes queued within one event-loop turn share one transaction, so one fsync makes a burst of
// deliveries durable instead of one fsync each. Only batches holding a durable write (an inbox row,
// promise 2) run with synchronous=FULL; everything else (positions, states, resource rows: all
// recomputable by replaying the inbox, which is idempotent) commits with NORMAL, which in WAL mode
// survives a process crash and skips the fsync. A failing write is isolated by the helper.
import type Database from 'better-sqlite3';
import { GroupCommit as SharedGroupCommit } from '@rsnotify/service-kit';
import { StoreError } from '../../errors/index.js';

interface Write {
  readonly run: () => unknown;
  readonly durable: boolean;
}

export class GroupCommit {
  private readonly group: SharedGroupCommit<Write, unknown>;
  /** The connection's current synchronous setting (starts at what the store opened with). */
  private full = true;

  constructor(private readonly sqlite: Database.Database) {
    this.group = new SharedGroupCommit<Write, unknown>({
      commit: (batch) => this.commit(batch),
      closedError: () => new StoreError('RSN_STORE_CLOSED', 'store closed'),
    });
  }

  run<T>(fn: () => T, durable = false): Promise<T> {
    return this.group.submit({ run: fn, durable }) as Promise<T>;
  }

  private commit(batch: readonly Write[]): unknown[] {
    const durable = batch.some((w) => w.durable);
    if (durable !== this.full) {
      this.sqlite.pragma(`synchronous = ${durable ? 'FULL' : 'NORMAL'}`);
      this.full = durable;
    }
    return this.sqlite.transaction(() => batch.map((w) => w.run()))();
  }

  flush(): void {
    this.group.flush();
  }

  close(): void {
    this.group.close();
  }
}
