// Recent notification bodies shared by every subscription of a topic, so a fan-out to many
// subscribers reads the body once (from the publish path), not once per subscriber from SQLite.
import type { StoredNotification } from '../store/index.js';

export class NotificationCache {
  private readonly entries = new Map<string, StoredNotification>();
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
    this.bytes += size;
    // Oldest first: Map iteration follows insertion order, and older notifications are the ones
    // every cursor has most likely passed.
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= v.body.length + v.linkHeader.length + 64;
    }
  }
}
