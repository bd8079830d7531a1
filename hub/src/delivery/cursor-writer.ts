// Cursor moves are written in batches: every delivery outcome marks its subscription's cursor dirty,
// and one transaction 100 ms later writes all of them (given-up records first). A crash replays from
// the last written cursor (at-least-once, promise 1): at most the last ~100 ms of deliveries are sent
// again. The window is what makes the writes cheap under load: at 1,000 subscriptions each cursor
// moves about every 40 ms, so a 5 ms window wrote one row per delivery (~3 µs of the hub's ~34 µs);
// per 100 ms each row covers several deliveries. A mark only flags the scheduler's own state object
// (its cursor is read at the flush), so a delivery makes no object and no Map entry here. While the
// database is away the batch is kept and retried with a growing pause (up to 1 s), never dropped.
import type { Logger } from '../observability/index.js';
import type { CursorUpdate, HubRepository } from '../store/index.js';

/** How long cursor moves are gathered before one transaction writes them (see the top). */
export const CURSOR_FLUSH_DELAY_MS = 100;

/** A subscription's in-memory state as the writer sees it: flagged while its cursor is unsaved. */
export interface CursorSource {
  readonly id: number;
  /** Set by `mark`, cleared when the flush takes the cursor or the subscription is forgotten. */
  cursorDirty: boolean;
}

export interface CursorWriterDeps<S extends CursorSource> {
  readonly store: Pick<HubRepository, 'saveCursors'>;
  readonly logger: Logger;
  readonly now: () => number;
  /** The cursor of a source as it stands now (read at the flush). */
  readonly cursorOf: (source: S) => CursorUpdate;
  /** How long cursor moves are gathered before one transaction writes them. */
  readonly flushDelayMs?: number;
}

export class CursorWriter<S extends CursorSource> {
  /** Sources marked since the last flush; one forgotten (flag cleared) is skipped. */
  private dirty: S[] = [];
  /** Updates written as they are, before the dirty cursors: given-up records, handed-back cursors. */
  private fixed: CursorUpdate[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private flushFailures = 0;
  private closed = false;

  constructor(private readonly deps: CursorWriterDeps<S>) {}

  /** The source's cursor moved; it is read when the batch is written. */
  mark(source: S): void {
    if (!source.cursorDirty) {
      source.cursorDirty = true;
      this.dirty.push(source);
    }
    this.schedule();
  }

  /** An update written as it is with the next batch (a given-up record, a handed-back cursor). */
  markFixed(update: CursorUpdate, source?: S): void {
    this.fixed.push(update);
    if (source) source.cursorDirty = false;
    this.schedule();
  }

  /** Drops the unsaved cursor of a subscription this process no longer drives. */
  forget(source: S): void {
    source.cursorDirty = false;
  }

  /** No more timers; `flush()` still writes what is gathered. */
  close(): void {
    this.closed = true;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
  }

  private schedule(): void {
    if (this.flushTimer || this.closed) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      void this.flush();
    }, this.deps.flushDelayMs ?? CURSOR_FLUSH_DELAY_MS);
  }

  /** Writes the gathered cursor moves in one transaction. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const batch = this.fixed;
      this.fixed = [];
      for (const source of this.dirty) {
        if (!source.cursorDirty) continue;
        source.cursorDirty = false;
        batch.push(this.deps.cursorOf(source));
      }
      this.dirty = [];
      if (batch.length === 0) return;
      try {
        await this.deps.store.saveCursors(batch, this.deps.now());
        this.flushFailures = 0;
      } catch (err) {
        this.deps.logger.error(
          { event: 'store.cursor_save_failed', err, count: batch.length },
          'could not save delivery cursors; will retry',
        );
        // Kept for the next try, ahead of anything newer: a cursor marked again since is written
        // after it in the same transaction, so the newest state is the one that stays.
        this.fixed = batch.concat(this.fixed);
        // Back off while the database is away (up to 1 s) instead of retrying every few ms.
        this.flushFailures++;
        if (!this.flushTimer && !this.closed) {
          this.flushTimer = setTimeout(
            () => {
              this.flushTimer = undefined;
              void this.flush();
            },
            Math.min(1_000, 5 * 2 ** this.flushFailures),
          );
        }
      }
    });
    return this.flushing;
  }
}
