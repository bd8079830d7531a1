// What the callback routes and the delivery endpoint are given by the daemon (service.ts).
import type { Logger, SubscriberMetrics } from '../observability/index.js';
import type { SubscriberRepository, SubscriptionRecord } from '../store/index.js';
import type { LeasePolicy } from '../subscription/index.js';

export interface IntakeDeps {
  readonly repo: SubscriberRepository;
  readonly logger: Logger;
  readonly metrics: SubscriberMetrics;
  readonly clock: () => number;
  readonly leasePolicy: LeasePolicy;
  readonly maxBodyBytes: number;
  /** Path prefix of publicUrl ('' or '/something'). */
  readonly basePath: string;
  readonly sourceName: (sourceId: number) => string;
  /**
   * A delivery was committed to the inbox: called once per row, as soon as the store reports the
   * commit (possibly before it is synced to disk and answered), else after the answer.
   */
  readonly onDelivered: (
    sourceId: number,
    inboxId: number,
    body: Buffer,
    receivedAt: number,
  ) => void;
  /** A verification changed a subscription (verified, unsubscribed, denied). */
  readonly onSubscriptionChanged: (rec: SubscriptionRecord) => void;
}
