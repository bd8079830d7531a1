// Where a delivery's notification comes from: the cache (cache.ts), else the store, read once
// however many subscriptions miss it at the same time. A publish committed by another hub process
// (the cluster's wake-up) is in no cache here, so every subscription of the topic driven here missed
// it at once and each read the same row: at 500 subscriptions, 500 queries for one notification.
// The row read is cached for the subscriptions still behind it.
import type { StoredNotification } from '../store/index.js';
import type { NotificationCache } from './cache.js';
import type { DeliveryStore } from './delivery-store.js';
import type { TopicState } from './subscription-state.js';

export class NotificationReads {
  /** topic id → seq → the read in flight. */
  private readonly inFlight = new Map<
    number,
    Map<number, Promise<StoredNotification | undefined>>
  >();

  constructor(
    private readonly store: Pick<DeliveryStore, 'getNotification'>,
    private readonly cache: NotificationCache,
  ) {}

  /** The notification `seq` of `topic`, from the store; one read at a time per notification. */
  read(topic: TopicState, seq: number): Promise<StoredNotification | undefined> {
    let bySeq = this.inFlight.get(topic.id);
    const pending = bySeq?.get(seq);
    if (pending) return pending;
    if (!bySeq) {
      bySeq = new Map();
      this.inFlight.set(topic.id, bySeq);
    }
    const reading = this.store.getNotification(topic.id, seq).then(
      (n) => {
        this.settled(topic.id, seq);
        if (n) this.cache.put(n, behind(topic, seq));
        return n;
      },
      (err: unknown) => {
        this.settled(topic.id, seq);
        throw err;
      },
    );
    bySeq.set(seq, reading);
    return reading;
  }

  private settled(topicId: number, seq: number): void {
    const bySeq = this.inFlight.get(topicId);
    bySeq?.delete(seq);
    if (bySeq?.size === 0) this.inFlight.delete(topicId);
  }
}

/** The subscriptions of `topic` driven here that have yet to be sent `seq` (the cache's count). */
function behind(topic: TopicState, seq: number): number {
  let n = 0;
  for (const sub of topic.subs.values()) if (!sub.removed && sub.deliveredSeq < seq) n++;
  return n;
}
