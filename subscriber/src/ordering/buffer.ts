// The ordering engine's buffer: notifications sorted by (from, until, id), as a persistent
// (immutable) sequence. The engine is pure, so every transition returns a new state and an old state
// stays valid; copying an array on every notification made a backlog quadratic (a Source that falls
// behind, or a long gap, buffers thousands). Here the two common steps cost O(1) amortized and share
// storage with the buffer they came from:
// - an arrival that sorts last (notifications of a contiguous stream arrive in `from` order) is
//   appended to the shared store when this buffer ends where the store ends;
// - dropping the head moves a start index.
// An old buffer never sees a change: the store is only appended past every buffer that ends at its
// length, and is never written below that. Out-of-order arrivals copy (O(n), rare); lookups are
// binary searches.
import { compareDateTime, type DateTime } from '@rsnotify/shared';

export interface PendingNotification {
  readonly id: number;
  readonly from: DateTime;
  readonly until: DateTime;
  /** ms, when the notification was received (kept for the shell; ordering uses `now`). */
  readonly receivedAt: number;
}

const cmp = compareDateTime;

function compareNotifications(a: PendingNotification, b: PendingNotification): number {
  return cmp(a.from, b.from) || cmp(a.until, b.until) || a.id - b.id;
}

/** Below this many dropped heads the store is not compacted (copying a short store gains nothing). */
const COMPACT_MIN = 1024;

export class NotificationBuffer implements Iterable<PendingNotification> {
  private constructor(
    private readonly store: PendingNotification[],
    private readonly start: number,
    private readonly end: number,
  ) {}

  /** A new empty buffer (each with its own store, so unrelated states never share one). */
  static empty(): NotificationBuffer {
    return new NotificationBuffer([], 0, 0);
  }

  static of(items: Iterable<PendingNotification>): NotificationBuffer {
    const store = [...items].sort(compareNotifications);
    return new NotificationBuffer(store, 0, store.length);
  }

  get length(): number {
    return this.end - this.start;
  }

  /** The first (earliest) notification, or undefined when empty. */
  head(): PendingNotification | undefined {
    return this.start < this.end ? this.store[this.start] : undefined;
  }

  at(index: number): PendingNotification | undefined {
    return index >= 0 && index < this.length ? this.store[this.start + index] : undefined;
  }

  *[Symbol.iterator](): Iterator<PendingNotification> {
    for (let i = this.start; i < this.end; i++) yield this.store[i]!;
  }

  map<T>(fn: (n: PendingNotification) => T): T[] {
    const out: T[] = [];
    for (let i = this.start; i < this.end; i++) out.push(fn(this.store[i]!));
    return out;
  }

  toArray(): PendingNotification[] {
    return this.store.slice(this.start, this.end);
  }

  /** The buffer without its head. O(1), with an occasional compaction (amortized O(1)). */
  withoutHead(): NotificationBuffer {
    if (this.start >= this.end) return this;
    const start = this.start + 1;
    if (start >= COMPACT_MIN && start > this.end - start) {
      // Most of the store is dropped heads: copy the live part so the store does not grow forever.
      const live = this.store.slice(start, this.end);
      return new NotificationBuffer(live, 0, live.length);
    }
    return new NotificationBuffer(this.store, start, this.end);
  }

  /** The buffer with `n` in its sorted place. O(1) amortized when `n` sorts last, else O(n). */
  inserted(n: PendingNotification): NotificationBuffer {
    const at = this.upperBound(n);
    if (at === this.end && this.store.length === this.end) {
      this.store.push(n); // beyond the end of every buffer sharing this store: none of them changes
      return new NotificationBuffer(this.store, this.start, this.end + 1);
    }
    const store = this.store.slice(this.start, this.end);
    store.splice(at - this.start, 0, n);
    return new NotificationBuffer(store, 0, store.length);
  }

  /** The notifications buffered for exactly the interval [from, until] (RN-5: one interval, one notification). */
  withInterval(from: DateTime, until: DateTime): PendingNotification[] {
    let lo = this.start;
    let hi = this.end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const m = this.store[mid]!;
      if ((cmp(m.from, from) || cmp(m.until, until)) < 0) lo = mid + 1;
      else hi = mid;
    }
    const out: PendingNotification[] = [];
    for (let i = lo; i < this.end; i++) {
      const m = this.store[i]!;
      if (cmp(m.from, from) !== 0 || cmp(m.until, until) !== 0) break;
      out.push(m);
    }
    return out;
  }

  /** The index in the store after every element that sorts at or before `n`. */
  private upperBound(n: PendingNotification): number {
    // Fast path: a stream in order sorts after the last element.
    if (this.end === this.start || compareNotifications(this.store[this.end - 1]!, n) <= 0)
      return this.end;
    let lo = this.start;
    let hi = this.end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareNotifications(this.store[mid]!, n) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
