// Recent notification bodies shared by every subscription of a topic, so a fan-out to many
// subscribers reads the body once (from the publish path), not once per subscriber from SQLite.
import type { StoredNotification } from '../store/index.js';

export class NotificationCache {
  private readonly entries = new Map<string, StoredNotification>();
  /**
   * Keys in insertion order, oldest at `head`. Evicting by iterating the Map from its start walked
   * over every deleted slot still in its table (V8 compacts only on rehash): O(entries) per put.
   */
  private order: string[] = [];
  private head = 0;
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  private static key(topicId: number, seq: number): string {
    return `${topicId}:${seq}`;
  }

  get(topicId: number, seq: number): StoredNotification | undefined {
    return this.entries.get(NotificationCache.key(topicId, seq));
  }

  put(n: StoredNotification): void {
    const key = NotificationCache.key(n.topicId, n.seq);
    if (this.entries.has(key)) return;
    const size = n.body.length + n.linkHeader.length + 64;
    if (size > this.maxBytes / 4) return;
    this.entries.set(key, n);
    this.order.push(key);
    this.bytes += size;
    // Oldest first: older notifications are the ones every cursor has most likely passed.
    while (this.bytes > this.maxBytes && this.head < this.order.length) {
      const k = this.order[this.head++]!;
      const v = this.entries.get(k);
      if (v === undefined) continue;
      this.entries.delete(k);
      this.bytes -= v.body.length + v.linkHeader.length + 64;
    }
    if (this.head > 1024 && this.head * 2 > this.order.length) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
  }
}
