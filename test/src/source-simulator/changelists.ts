// The Change List history (RS §12): closed lists plus one open list, behind a Change List Index.
// Batches arrive in order; the store is plain data driven by `nowMs` passed in (no timers here).
//  - A list closes at a batch boundary, so a closed list's `until` is the `until` of a notification
//    and the next list's `from` equals it exactly (the lists tile time like the notifications do).
//  - Lag fault: a batch waits in `pending` until its visibility time, FIFO; while anything waits, the
//    lists are only complete up to the first waiting batch's `from` (see `completeUpTo`).
//  - Retention drops closed lists that closed longer ago than `retentionMs`: the index's `from`
//    moves forward as time passes.
import { compareDateTime, type DateTime } from '@rsnotify/shared';
import type { ChangeRecord } from './state.js';

/** A run of changes made together, with its contiguous interval: from < each change time < until. */
export interface Batch {
  readonly from: DateTime;
  readonly until: DateTime;
  readonly changes: readonly ChangeRecord[];
}

export interface ChangeListPart {
  /** Sequence number, in the list's URL. */
  readonly id: number;
  /** Moves forward only when history is truncated (the quirk). */
  from: DateTime;
  until?: DateTime;
  readonly entries: ChangeRecord[];
  readonly openedAtMs: number;
  /** When the first entry arrived: the age for rollover counts from here. */
  firstEntryAtMs?: number;
  closedAtMs?: number;
  /** Bumped on each append or close, for caches. */
  revision: number;
}

export interface ChangeListPolicy {
  /** A list closes once it holds at least this many entries. */
  readonly maxEntries: number;
  /** A list closes this long after its first entry arrived. */
  readonly maxAgeMs: number;
  /** Closed lists are dropped this long after they closed. */
  readonly retentionMs: number;
}

export class ChangeListStore {
  readonly lists: ChangeListPart[] = [];
  private readonly pending: { batch: Batch; visibleAtMs: number }[] = [];
  private nextId = 1;
  /** Bumped on every visible change of the set of lists, for the index cache. */
  revision = 0;
  /** The `until` of the last batch that reached the lists (the start time at first). */
  private visibleUntil: DateTime;

  constructor(
    start: DateTime,
    nowMs: number,
    private readonly policy: ChangeListPolicy,
  ) {
    this.visibleUntil = start;
    this.open(start, nowMs);
  }

  private open(from: DateTime, nowMs: number): void {
    this.lists.push({ id: this.nextId++, from, entries: [], openedAtMs: nowMs, revision: 0 });
    this.revision++;
  }

  private close(nowMs: number): void {
    const current = this.current();
    current.until = this.visibleUntil;
    current.closedAtMs = nowMs;
    current.revision++;
    this.open(this.visibleUntil, nowMs);
  }

  current(): ChangeListPart {
    return this.lists[this.lists.length - 1]!;
  }

  get(id: number): ChangeListPart | undefined {
    return this.lists.find((l) => l.id === id);
  }

  /** Queues a batch; it reaches the lists at `visibleAtMs` (now, without the lag fault). */
  enqueue(batch: Batch, visibleAtMs: number, nowMs: number): void {
    this.pending.push({ batch, visibleAtMs });
    this.maintain(nowMs);
  }

  private closeIfOld(nowMs: number): void {
    const first = this.current().firstEntryAtMs;
    if (first !== undefined && nowMs - first >= this.policy.maxAgeMs) this.close(nowMs);
  }

  /** Moves due batches in, closes a list that is old enough, drops lists past retention. */
  maintain(nowMs: number): void {
    while (this.pending.length > 0 && this.pending[0]!.visibleAtMs <= nowMs) {
      const { batch } = this.pending.shift()!;
      if (compareDateTime(batch.from, this.visibleUntil) !== 0) {
        throw new Error(
          `simulator bug: batch from ${batch.from.lexical} != ${this.visibleUntil.lexical}`,
        );
      }
      // A list that is old enough closes before the batch: the batch came after its time was up.
      this.closeIfOld(nowMs);
      const current = this.current();
      current.firstEntryAtMs ??= nowMs;
      current.entries.push(...batch.changes);
      current.revision++;
      this.visibleUntil = batch.until;
      this.revision++;
      if (current.entries.length >= this.policy.maxEntries) this.close(nowMs);
    }
    this.closeIfOld(nowMs);
    const cutoff = nowMs - this.policy.retentionMs;
    let drop = 0;
    while (drop < this.lists.length - 1 && this.lists[drop]!.closedAtMs! < cutoff) drop++;
    if (drop > 0) {
      this.lists.splice(0, drop);
      this.revision++;
    }
  }

  /**
   * Quirk: drops the `count` oldest changes. A list that loses entries starts after the last one
   * dropped (its `from` moves on, when the Source writes one); emptied closed lists go.
   */
  truncate(count: number): void {
    let left = count;
    while (left > 0) {
      const oldest = this.lists[0]!;
      if (oldest.entries.length === 0) {
        if (this.lists.length === 1) break;
        this.lists.shift();
        continue;
      }
      const dropped = oldest.entries.shift()!;
      oldest.from = dropped.time;
      oldest.revision++;
      left--;
    }
    this.revision++;
  }

  /** Undefined when the lists hold every change made; else the instant they are complete up to. */
  completeUpTo(): DateTime | undefined {
    return this.pending[0]?.batch.from;
  }

  /** Batches still waiting (lag fault). */
  get pendingBatches(): number {
    return this.pending.length;
  }

  /** Lets every waiting batch in now, whatever the lag (used by flush-like helpers and close). */
  releaseAll(nowMs: number): void {
    for (const p of this.pending) p.visibleAtMs = Math.min(p.visibleAtMs, nowMs);
    this.maintain(nowMs);
  }
}
