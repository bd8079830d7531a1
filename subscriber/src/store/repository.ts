// The store contract in domain nouns. Drizzle rows never leave store/. The contract is async so a
// later engine (PostgreSQL) fits behind it; the SQLite engine is synchronous inside.

export type SourceMode = 'push' | 'poll' | 'unknown';

export interface SourceRecord {
  readonly id: number;
  readonly name: string;
  readonly url: string;
  readonly capabilityListUrl?: string;
  readonly resourceListUrl?: string;
  readonly changeListUrl?: string;
  readonly topic?: string;
  readonly hub?: string;
  readonly mode: SourceMode;
  readonly discoveryRoute?: string;
  readonly discoveredAt?: number;
  readonly subscriptionDisabled: boolean;
  readonly ignoredDeliveries: number;
  readonly lastError?: string;
  readonly lastErrorAt?: number;
}

export type SourcePatch = Partial<Omit<SourceRecord, 'id' | 'name' | 'ignoredDeliveries'>>;

export type SubscriptionState =
  | 'pending-subscribe'
  | 'active'
  | 'pending-unsubscribe'
  | 'unsubscribed'
  | 'denied'
  | 'expired'
  /** Never verified (hub error, no verification in time) or replaced before verification. */
  | 'abandoned';

export interface SubscriptionRecord {
  readonly id: number;
  readonly sourceId: number;
  readonly hub: string;
  readonly topic: string;
  readonly callbackToken: string;
  readonly callbackUrl: string;
  readonly secret?: string;
  readonly state: SubscriptionState;
  readonly requestedLeaseSeconds?: number;
  readonly leaseSeconds?: number;
  readonly requestedAt: number;
  readonly verifiedAt?: number;
  readonly leaseExpiresAt?: number;
  readonly renewAt?: number;
  readonly renewsId?: number;
  readonly attempt: number;
  readonly lastError?: string;
  readonly deniedReason?: string;
  readonly updatedAt: number;
}

export type NewSubscription = Omit<SubscriptionRecord, 'id' | 'updatedAt'>;
export type SubscriptionPatch = Partial<
  Omit<SubscriptionRecord, 'id' | 'sourceId' | 'callbackToken' | 'callbackUrl'>
>;

export type InboxState = 'new' | 'buffered' | 'applying' | 'applied' | 'superseded' | 'invalid';
export const OPEN_INBOX_STATES: readonly InboxState[] = ['new', 'buffered', 'applying'];
export const INBOX_STATES: readonly InboxState[] = [
  ...OPEN_INBOX_STATES,
  'applied',
  'superseded',
  'invalid',
];

export interface InboxRow {
  readonly id: number;
  readonly sourceId: number;
  readonly subscriptionId?: number;
  readonly receivedAt: number;
  readonly contentType?: string;
  readonly body: Buffer;
  readonly signature: 'ok' | 'unsigned';
  readonly from?: string;
  readonly until?: string;
  readonly state: InboxState;
  readonly error?: string;
}

export type NewInboxRow = Omit<InboxRow, 'id' | 'state' | 'from' | 'until' | 'error'>;

export interface PositionRecord {
  readonly sourceId: number;
  readonly syncedUntil?: string;
  readonly gapOpenedAt?: number;
  readonly baselineAt?: string;
  readonly baselineRanAt?: number;
  readonly lastAppliedAt?: number;
}

export interface ResourceRecord {
  readonly uri: string;
  readonly path: string;
  readonly sha256?: string;
  readonly length?: number;
  readonly lastChangeKey?: string;
}

export interface EventRecord {
  readonly at: number;
  readonly uri: string;
  readonly change: string;
  readonly outcome: 'written' | 'deleted' | 'skipped' | 'failed';
  readonly errorCode?: string;
  readonly error?: string;
}

export type CatchUpReason = 'gap' | 'startup' | 'poll' | 'manual' | 'baseline';
export type CatchUpState = 'running' | 'done' | 'partial' | 'failed' | 'history-gone';

export interface CatchUpRecord {
  readonly id: number;
  readonly sourceId: number;
  readonly reason: CatchUpReason;
  readonly from?: string;
  readonly to?: string;
  readonly state: CatchUpState;
  readonly attempts: number;
  readonly changes: number;
  readonly startedAt: number;
  readonly finishedAt?: number;
  readonly lastError?: string;
}

export interface SourceCounters {
  readonly openInbox: number;
  readonly newestUntil?: string;
  readonly catchUps: number;
  readonly failedEvents: number;
  /** Changes carried out on the mirror: files written plus files removed. */
  readonly appliedEvents: number;
  readonly resources: number;
}

/** A gap detected between two notifications: the interval no notification covered (RN-5). */
export interface GapRecord {
  /** Lexical `until` the position stood at, and the `from` of the notification past the gap. */
  readonly from: string;
  readonly to: string;
  readonly detectedAt: number;
}

export type ReconciliationOutcome = 'in-sync' | 'repaired' | 'source-changing' | 'failed';

/** One reconciliation with the Resource List (audit, then repair), as `status` shows it. */
export interface ReconciliationRecord {
  readonly at: number;
  readonly reason: 'periodic' | 'manual';
  readonly outcome: ReconciliationOutcome;
  /** Resources the audit compared, and what it found (absent when the run failed before it). */
  readonly checked?: number;
  readonly missing?: number;
  readonly extra?: number;
  readonly different?: number;
  /** What the repair did. */
  readonly fetched?: number;
  readonly removed?: number;
  readonly failed?: number;
  readonly error?: string;
}

/** Running totals and last events per source that outlive the pruned history rows. */
export interface SourceActivity {
  readonly gaps: number;
  readonly lastGap?: GapRecord;
  readonly lastReconciliation?: ReconciliationRecord;
}

/**
 * How soon a write must commit. `trailing`: the caller does not wait for it before going on (the
 * runner's per-notification records: events, inbox state, position), so it may share a commit with
 * the writes of the next few milliseconds (TRAILING_COMMIT_MS); its promise still resolves only at
 * that commit. Everything such a write records is recomputed by replaying the inbox after a crash.
 */
export interface WriteOptions {
  readonly trailing?: boolean;
}

export interface SubscriberRepository {
  ensureSource(name: string, url: string): Promise<SourceRecord>;
  getSource(name: string): Promise<SourceRecord | undefined>;
  listSources(): Promise<SourceRecord[]>;
  updateSource(id: number, patch: SourcePatch): Promise<void>;
  countIgnoredDelivery(sourceId: number): Promise<void>;

  insertSubscription(sub: NewSubscription): Promise<SubscriptionRecord>;
  updateSubscription(id: number, patch: SubscriptionPatch): Promise<SubscriptionRecord | undefined>;
  findSubscriptionByToken(token: string): Promise<SubscriptionRecord | undefined>;
  listSubscriptions(sourceId: number): Promise<SubscriptionRecord[]>;

  /**
   * Durable (committed to disk) when the promise resolves: WS-11, promise 2. `onCommitted`, when
   * the store calls it, gets the row's id once it is committed and readable, possibly before it is
   * on disk: idempotent work may start there, the 2xx waits for the promise.
   */
  insertInbox(row: NewInboxRow, onCommitted?: (id: number) => void): Promise<number>;
  getInbox(id: number): Promise<InboxRow | undefined>;
  /**
   * Rows not yet applied or superseded, oldest first: what a restart feeds back to ordering; with
   * `page`, only those after `afterId`, at most `limit`.
   */
  listOpenInbox(
    sourceId: number,
    page?: { readonly afterId: number; readonly limit: number },
  ): Promise<InboxRow[]>;
  /** The source's rows with ids from `fromId` to `toId`, oldest first, at most `limit`. */
  listInboxRange(
    sourceId: number,
    fromId: number,
    toId: number,
    limit: number,
  ): Promise<InboxRow[]>;
  updateInbox(
    id: number,
    patch: { state?: InboxState; from?: string; until?: string; error?: string },
    options?: WriteOptions,
  ): Promise<void>;
  setInboxState(ids: readonly number[], state: InboxState): Promise<void>;
  /** Drops bodies of finished rows older than `before` (keeps the table small). */
  pruneInbox(sourceId: number, before: number): Promise<number>;
  /** Drops events and finished catch-ups older than `before`; the running totals in counters() stay. */
  pruneHistory(sourceId: number, before: number): Promise<number>;

  getPosition(sourceId: number): Promise<PositionRecord | undefined>;
  savePosition(
    sourceId: number,
    patch: Omit<PositionRecord, 'sourceId'>,
    options?: WriteOptions,
  ): Promise<void>;

  getResource(sourceId: number, uri: string): Promise<ResourceRecord | undefined>;
  setResource(sourceId: number, uri: string, rec: ResourceRecord | null): Promise<void>;
  listResourceUris(sourceId: number): Promise<string[]>;
  /** Every URI with the mirror path its file was written to (layout migration). */
  listResourcePaths(sourceId: number): Promise<{ uri: string; path: string }[]>;
  setResourcePath(sourceId: number, uri: string, path: string): Promise<void>;

  addEvents(
    sourceId: number,
    events: readonly EventRecord[],
    options?: WriteOptions,
  ): Promise<void>;
  /** Commits the trailing writes waiting for their window now: no more are coming for a while. */
  commitTrailing(): void;
  recentEvents(sourceId: number, limit: number): Promise<EventRecord[]>;

  startCatchUp(
    sourceId: number,
    reason: CatchUpReason,
    from: string | undefined,
    to: string | undefined,
    now: number,
  ): Promise<number>;
  finishCatchUp(
    id: number,
    patch: {
      state: CatchUpState;
      changes?: number;
      lastError?: string;
      finishedAt: number;
      to?: string;
    },
  ): Promise<void>;
  lastCatchUp(sourceId: number): Promise<CatchUpRecord | undefined>;

  counters(sourceId: number): Promise<SourceCounters>;

  /** Counts a gap and keeps it as the source's last gap. */
  recordGap(sourceId: number, gap: GapRecord): Promise<void>;
  recordReconciliation(sourceId: number, rec: ReconciliationRecord): Promise<void>;
  activity(sourceId: number): Promise<SourceActivity>;
  close(): Promise<void>;
}
