// Recent notification bodies shared by every subscription of a topic, so a fan-out to many
// subscribers reads the body once (from the publish path), not once per subscriber from SQLite.
//
// An entry is kept only while a subscription driven here still has to be sent it: `put` is told
// how many are behind it, each `passed` (delivered or given up) counts one off, and the last one
// drops it. Kept until evicted by size instead, every body of a burst outlived the young
// generation and was copied and promoted by the GC: skipping the cache in the publish rounds
// (nothing subscribed) took 7 % off the hub's CPU per publish (test/bench/results/profile.md). The
// byte bound stays as the backstop for what is never counted off (a subscription removed, a cursor
// moved forward by a renewal, another hub process delivering). A miss only costs a read from the
// store, so a count that goes wrong never loses a delivery.
import type { StoredNotification } from '../store/index.js';

interface Entry {
  readonly n: StoredNotification;
  readonly size: number;
  /** Subscriptions driven here that have not passed it yet. */
  waiting: number;
  /** Dropped (passed by all, or evicted): still in `order` until the eviction walks past it. */
  gone: boolean;
}

const sizeOf = (n: StoredNotification): number => n.body.length + n.linkHeader.length + 64;

/**
 * The byte bound for a hub that takes bodies up to `maxBodyBytes`: room for four of the largest
 * (one over a quarter of the bound is never cached), 64 MiB at least. A flat 64 MiB left a
 * publish of exactly the default limit (16 MiB) uncached, and each of its subscribers read and
 * joined its 16 MiB from the store again. The slack covers four Link headers, each within the
 * listener's request head (16 KiB).
 */
export function cacheBytesFor(maxBodyBytes: number): number {
  return Math.max(64 * 1024 * 1024, 4 * maxBodyBytes + 1024 * 1024);
}

export class NotificationCache {
  /** topic id → seq → entry: no key string is built per delivery. */
  private readonly topics = new Map<number, Map<number, Entry>>();
  /** Entries in insertion order, oldest at `head` (some already gone). */
  private order: Entry[] = [];
  private head = 0;
  private bytes = 0;
  private live = 0;

  constructor(private readonly maxBytes: number) {}

  get(topicId: number, seq: number): StoredNotification | undefined {
    return this.topics.get(topicId)?.get(seq)?.n;
  }

  /** Caches `n` for the `waiting` subscriptions that will be sent it (none: not cached). */
  put(n: StoredNotification, waiting: number): void {
    if (waiting <= 0) return;
    const size = sizeOf(n);
    if (size > this.maxBytes / 4) return;
    let bySeq = this.topics.get(n.topicId);
    if (bySeq === undefined) {
      bySeq = new Map();
      this.topics.set(n.topicId, bySeq);
    } else if (bySeq.has(n.seq)) {
      return;
    }
    const entry: Entry = { n, size, waiting, gone: false };
    bySeq.set(n.seq, entry);
    this.order.push(entry);
    this.bytes += size;
    this.live++;
    // Oldest first: older notifications are the ones every cursor has most likely passed.
    while (this.bytes > this.maxBytes && this.head < this.order.length) {
      const oldest = this.order[this.head++]!;
      if (!oldest.gone) this.drop(oldest);
    }
    this.compact();
  }

  /** One subscription driven here is past `seq` of the topic (delivered or given up). */
  passed(topicId: number, seq: number): void {
    const entry = this.topics.get(topicId)?.get(seq);
    if (entry !== undefined && --entry.waiting <= 0) {
      this.drop(entry);
      this.compact();
    }
  }

  /** Entries held now (tests read it). */
  get size(): number {
    return this.live;
  }

  private drop(entry: Entry): void {
    entry.gone = true;
    this.bytes -= entry.size;
    this.live--;
    const bySeq = this.topics.get(entry.n.topicId)!;
    bySeq.delete(entry.n.seq);
    if (bySeq.size === 0) this.topics.delete(entry.n.topicId);
  }

  /** Forgets the dropped entries at the front of `order`, and rebuilds it once mostly dropped. */
  private compact(): void {
    while (this.head < this.order.length && this.order[this.head]!.gone) this.head++;
    if (this.head === this.order.length) {
      this.order = [];
      this.head = 0;
    } else if (this.order.length > 1024 && this.order.length > 2 * this.live + this.head) {
      // Mostly entries dropped out of order (a topic's subscribers ahead of another's): O(live)
      // once per as many drops, so O(1) per drop.
      this.order = this.order.slice(this.head).filter((e) => !e.gone);
      this.head = 0;
    }
  }
}
