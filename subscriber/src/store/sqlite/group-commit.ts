// Group commit: writes queued within one event-loop turn share one transaction, so one fsync makes a
// burst of deliveries durable instead of one fsync each. Only batches holding a durable write (an
// inbox row, promise 2) run with synchronous=FULL; everything else (positions, states, resource rows:
// all recomputable by replaying the inbox, which is idempotent) commits with NORMAL, which in WAL mode
// survives a process crash and skips the fsync. A failing write is isolated by re-running the batch
// one by one, so one bad row never fails its neighbours.
import type Database from 'better-sqlite3';
import { StoreError } from '../../errors/index.js';

interface Pending {
  run: () => unknown;
  durable: boolean;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

export class GroupCommit {
  private queue: Pending[] = [];
  private scheduled = false;
  private closed = false;
  /** The connection's current synchronous setting (starts at what the store opened with). */
  private full = true;

  constructor(private readonly sqlite: Database.Database) {}

  run<T>(fn: () => T, durable = false): Promise<T> {
    if (this.closed) return Promise.reject(new StoreError('RSN_STORE_CLOSED', 'store closed'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run: fn, durable, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    const durable = batch.some((p) => p.durable);
    if (durable !== this.full) {
      this.sqlite.pragma(`synchronous = ${durable ? 'FULL' : 'NORMAL'}`);
      this.full = durable;
    }
    const results: unknown[] = [];
    try {
      this.sqlite.transaction(() => {
        for (const p of batch) results.push(p.run());
      })();
    } catch {
      for (const p of batch) {
        try {
          p.resolve(this.sqlite.transaction(p.run)());
        } catch (err) {
          p.reject(err);
        }
      }
      return;
    }
    batch.forEach((p, i) => p.resolve(results[i]));
  }

  close(): void {
    this.flush();
    this.closed = true;
  }
}
