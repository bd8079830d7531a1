// Group commit: writes submitted within one turn of the event loop share one transaction, so one
// commit (one fsync) makes a burst durable instead of one commit each; every caller is answered only
// after the commit that holds its write. A failing batch is re-run one item per transaction, so one
// bad row never fails its neighbours. The store supplies the transaction (SQLite in both daemons);
// this module owns the queueing, the batch boundary and the isolation of failures.
//
// A write nobody waits for before going on (a trailing write) may be submitted as deferred: it
// commits with the next write that is not, or once `deferredSchedule` fires, whichever comes first.
// A burst of work whose steps each end in such writes then commits every few milliseconds instead
// of once per step. There is one queue either way, so batches keep submission order.

/** Runs `flush` once, later (a turn of the event loop by default); tests pass a manual tick. */
export type FlushScheduler = (flush: () => void) => void;

export const nextTurn: FlushScheduler = (flush) => {
  setImmediate(flush);
};

export interface GroupCommitOptions<Item, Result> {
  /**
   * Writes the batch in ONE transaction and returns one result per item, in order; throws to roll
   * the whole batch back (it is then re-run one item at a time).
   */
  commit(batch: readonly Item[]): Result[];
  /** When the queued batch is flushed; default: the next turn of the event loop. */
  schedule?: FlushScheduler;
  /** When a batch of deferred writes alone is flushed; default: as `schedule`. */
  deferredSchedule?: FlushScheduler;
  /** The error a write submitted after `close()` is rejected with (from the store's catalog). */
  closedError: () => Error;
}

interface Pending<Item, Result> {
  readonly item: Item;
  readonly resolve: (r: Result) => void;
  readonly reject: (e: unknown) => void;
}

export class GroupCommit<Item, Result> {
  private queue: Pending<Item, Result>[] = [];
  private scheduled = false;
  private deferredScheduled = false;
  private closed = false;
  private readonly schedule: FlushScheduler;
  private readonly deferredSchedule: FlushScheduler;

  constructor(private readonly options: GroupCommitOptions<Item, Result>) {
    this.schedule = options.schedule ?? nextTurn;
    this.deferredSchedule = options.deferredSchedule ?? this.schedule;
  }

  /**
   * Queues one write; resolves with its result once the transaction holding it committed. A
   * `deferred` write waits for the next write that is not, or for `deferredSchedule`.
   */
  submit(item: Item, deferred = false): Promise<Result> {
    if (this.closed) return Promise.reject(this.options.closedError());
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (deferred) {
        if (this.scheduled || this.deferredScheduled) return;
        this.deferredScheduled = true;
        this.deferredSchedule(() => {
          this.deferredScheduled = false;
          this.flush();
        });
      } else if (!this.scheduled) {
        this.scheduled = true;
        this.schedule(() => this.flush());
      }
    });
  }

  /** Writes queued items now (also safe to call from the scheduled tick when nothing is queued). */
  flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    let results: Result[];
    try {
      results = this.options.commit(batch.map((p) => p.item));
    } catch {
      for (const p of batch) {
        try {
          p.resolve(this.options.commit([p.item])[0]!);
        } catch (err) {
          p.reject(err);
        }
      }
      return;
    }
    batch.forEach((p, i) => p.resolve(results[i]!));
  }

  /** Writes what is queued, then refuses further writes. */
  close(): void {
    this.flush();
    this.closed = true;
  }

  /** Writes waiting for the next flush. */
  get pending(): number {
    return this.queue.length;
  }
}
