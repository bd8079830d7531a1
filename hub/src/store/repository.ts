// The store contract in domain nouns. Protocol code talks only to this interface; drizzle rows never
// leave store/. Two engines keep it (hub/test/repository-contract.ts runs against both): SQLite runs
// synchronously inside the async calls, one transaction per call; PostgreSQL is shared by several
// hub processes.
import type { SignatureMethod } from '@rsnotify/shared';

export interface SourceRecord {
  readonly id: number;
  readonly name: string;
  readonly tokenHash: string;
  readonly topicPrefixes: readonly string[];
  /** Empty: any callback may subscribe. Otherwise a callback must start with one of these (WH-14). */
  readonly callbackPrefixes: readonly string[];
  readonly createdAt: number;
}

export interface TopicRecord {
  readonly id: number;
  readonly url: string;
  readonly lastSeq: number;
}

export interface Subscription {
  readonly id: number;
  readonly topicId: number;
  /** The WH-6 normalised topic URL (the channel key). */
  readonly topicUrl: string;
  readonly topicAsGiven: string;
  readonly callback: string;
  readonly secret: string | undefined;
  readonly algorithm: SignatureMethod;
  readonly leaseSeconds: number;
  readonly leaseExpiresAt: number;
  readonly deliveredSeq: number;
  readonly nextAttemptAt: number;
  readonly attempts: number;
  readonly firstFailedAt: number | undefined;
  readonly lastStatus: number | undefined;
  readonly lastError: string | undefined;
}

export type IntentMode = 'subscribe' | 'unsubscribe' | 'denied';

export interface Intent {
  readonly id: number;
  readonly mode: IntentMode;
  readonly topicUrl: string;
  readonly topicAsGiven: string;
  readonly callback: string;
  readonly secret: string | undefined;
  readonly leaseSeconds: number | undefined;
  readonly reason: string | undefined;
  readonly attempts: number;
  readonly nextAttemptAt: number;
  readonly createdAt: number;
}

export type NewIntent = Omit<Intent, 'id' | 'attempts'>;

export interface StoredNotification {
  readonly topicId: number;
  readonly seq: number;
  readonly receivedAt: number;
  readonly contentType: string;
  readonly linkHeader: string;
  readonly body: Buffer;
}

export interface NewNotification {
  readonly topicUrl: string;
  readonly receivedAt: number;
  readonly contentType: string;
  readonly linkHeader: string;
  readonly body: Buffer;
}

/** One subscription's delivery state after a delivery attempt; written in batches. */
export interface CursorUpdate {
  readonly subscriptionId: number;
  readonly deliveredSeq: number;
  readonly attempts: number;
  readonly nextAttemptAt: number;
  readonly firstFailedAt: number | undefined;
  readonly lastStatus: number | undefined;
  readonly lastError: string | undefined;
  /** Set when the cursor moved past a notification that was never acknowledged (promise 1). */
  readonly givenUp?: {
    readonly seq: number;
    readonly reason: string;
    readonly topicId: number;
    readonly callback: string;
  };
}

/**
 * The lease lapse rule (subscriptions/lease.ts `hasLeaseLapsed`), handed in by the caller so the
 * store applies it without deciding it (and store/ does not import subscriptions/).
 */
export type LeaseLapseRule = (leaseExpiresAt: number, now: number) => boolean;

/** A verified subscribe: the lease and secret it grants, applied to the (topic, callback) pair. */
export type ActivatedSubscription = Pick<
  Subscription,
  | 'topicUrl'
  | 'topicAsGiven'
  | 'callback'
  | 'secret'
  | 'algorithm'
  | 'leaseSeconds'
  | 'leaseExpiresAt'
> & { readonly now: number; readonly hasLapsed: LeaseLapseRule };

export interface SubscriptionCounts {
  readonly active: number;
  readonly expired: number;
  readonly pending: number;
}

export interface HubRepository {
  // Tenants (tenants/)
  addSource(source: {
    name: string;
    tokenHash: string;
    topicPrefixes: readonly string[];
    callbackPrefixes: readonly string[];
    now: number;
  }): Promise<SourceRecord>;
  removeSource(name: string): Promise<boolean>;
  listSources(): Promise<SourceRecord[]>;
  /** Changes whenever another connection (the CLI) committed; lets caches notice `source add`. */
  externalChangeMarker(): number;

  // Topics and notifications (publishing/)
  /** One transaction: seq = the topic's last seq + 1, and the row inserted. */
  appendNotification(n: NewNotification): Promise<{ topicId: number; seq: number }>;
  getNotification(topicId: number, seq: number): Promise<StoredNotification | undefined>;
  listTopics(): Promise<TopicRecord[]>;
  /** Drops notifications every cursor has passed that are older than `receivedBefore`. */
  pruneNotifications(receivedBefore: number): Promise<number>;

  // Subscriptions (subscriptions/, delivery/)
  listSubscriptions(filter?: { topicUrl?: string }): Promise<Subscription[]>;
  /** WH-9: creates the subscription at the topic's current end, or replaces lease and secret. */
  activateSubscription(s: ActivatedSubscription): Promise<Subscription>;
  removeSubscription(topicUrl: string, callback: string): Promise<Subscription | undefined>;
  removeSubscriptionById(id: number): Promise<void>;
  saveCursors(updates: readonly CursorUpdate[], now: number): Promise<void>;
  removeExpiredSubscriptions(now: number): Promise<Subscription[]>;
  countSubscriptions(now: number): Promise<SubscriptionCounts>;
  countGivenUp(): Promise<number>;

  // Intents (subscriptions/)
  /** Inserts an intent and drops older pending intents for the same (topic, callback): the newest request wins. */
  addIntent(intent: NewIntent): Promise<Intent>;
  dueIntents(now: number, limit: number): Promise<Intent[]>;
  nextIntentDueAt(): Promise<number | undefined>;
  deleteIntent(id: number): Promise<void>;
  rescheduleIntent(id: number, attempts: number, nextAttemptAt: number): Promise<void>;

  ping(): Promise<void>;
  /**
   * SQLite closes its connection at once and resolves once its checkpoint worker has ended;
   * PostgreSQL ends its pool. Await it before exiting.
   */
  close(): void | Promise<void>;
}
