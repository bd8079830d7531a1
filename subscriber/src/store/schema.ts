// The subscriber's tables. Datetimes from documents are stored as their
// lexical form (exact round trip, RN-5 equality) next to a sortable key where we query by them;
// wall-clock instants are integer milliseconds.
import {
  blob,
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core';

export const sources = sqliteTable('sources', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull().unique(),
  url: text('url').notNull(),
  capabilityListUrl: text('capability_list_url'),
  resourceListUrl: text('resource_list_url'),
  changeListUrl: text('change_list_url'),
  topic: text('topic'),
  hub: text('hub'),
  /** 'push' | 'poll' | 'unknown' (not discovered yet) */
  mode: text('mode').notNull().default('unknown'),
  discoveryRoute: text('discovery_route'),
  discoveredAt: integer('discovered_at'),
  /** Set by `unsubscribe NAME`: the daemon does not subscribe again until its next start. */
  subscriptionDisabled: integer('subscription_disabled', { mode: 'boolean' })
    .notNull()
    .default(false),
  ignoredDeliveries: integer('ignored_deliveries').notNull().default(0),
  // Running totals for `status`: the events and catchups rows they count are pruned after a while,
  // so they are kept here, updated in the same transaction as the rows.
  changesApplied: integer('changes_applied').notNull().default(0),
  changesFailed: integer('changes_failed').notNull().default(0),
  catchUpCount: integer('catch_up_count').notNull().default(0),
  /** Gaps detected between notifications (a running total) and the last one, for `status`. */
  gapCount: integer('gap_count').notNull().default(0),
  lastGapFrom: text('last_gap_from'),
  lastGapTo: text('last_gap_to'),
  lastGapAt: integer('last_gap_at'),
  /** The last reconciliation with the Resource List: JSON of a ReconciliationRecord. */
  lastReconciliation: text('last_reconciliation'),
  lastError: text('last_error'),
  lastErrorAt: integer('last_error_at'),
});

export const subscriptions = sqliteTable(
  'subscriptions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sourceId: integer('source_id')
      .notNull()
      .references(() => sources.id),
    hub: text('hub').notNull(),
    topic: text('topic').notNull(),
    /** The unguessable last path segment of the callback URL (WS-5). */
    callbackToken: text('callback_token').notNull(),
    callbackUrl: text('callback_url').notNull(),
    secret: text('secret'),
    /** pending-subscribe | active | pending-unsubscribe | unsubscribed | denied | expired | abandoned */
    state: text('state').notNull(),
    requestedLeaseSeconds: integer('requested_lease_seconds'),
    leaseSeconds: integer('lease_seconds'),
    requestedAt: integer('requested_at').notNull(),
    verifiedAt: integer('verified_at'),
    leaseExpiresAt: integer('lease_expires_at'),
    renewAt: integer('renew_at'),
    /** The subscription this one renews (its callback is unsubscribed once this one is verified). */
    renewsId: integer('renews_id'),
    attempt: integer('attempt').notNull().default(0),
    lastError: text('last_error'),
    deniedReason: text('denied_reason'),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('subscriptions_token_idx').on(t.callbackToken),
    index('subscriptions_source_idx').on(t.sourceId, t.state),
  ],
);

export const inbox = sqliteTable(
  'inbox',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sourceId: integer('source_id')
      .notNull()
      .references(() => sources.id),
    subscriptionId: integer('subscription_id'),
    receivedAt: integer('received_at').notNull(),
    contentType: text('content_type'),
    /** Empty when the body is stored in parts (`payloadId` set): see inboxParts. */
    body: blob('body', { mode: 'buffer' }).notNull(),
    payloadId: integer('payload_id'),
    /** ok | unsigned (no secret was set) */
    signature: text('signature').notNull(),
    from: text('from_at'),
    until: text('until_at'),
    /** new | buffered | applying | applied | superseded | invalid */
    state: text('state').notNull().default('new'),
    error: text('error'),
  },
  (t) => [index('inbox_source_state_idx').on(t.sourceId, t.state, t.id)],
);

/**
 * The body of a large delivery in parts (service-kit's SqliteBodyParts), each written in its own
 * short statement, so that neither the insert of its inbox row nor the updates of the row's state
 * write the whole body in one turn of the event loop. Parts are staged before their row and belong
 * to a delivery only once the row naming their payload id commits (WS-11); parts no row names are
 * swept when the inbox is pruned.
 */
export const inboxParts = sqliteTable(
  'inbox_parts',
  {
    payloadId: integer('payload_id').notNull(),
    part: integer('part').notNull(),
    bytes: blob('bytes', { mode: 'buffer' }).notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('inbox_parts_payload_part').on(t.payloadId, t.part)],
);

export const position = sqliteTable('position', {
  sourceId: integer('source_id')
    .primaryKey()
    .references(() => sources.id),
  /** Lexical `until` of the last interval really applied (promise 3); null before any. */
  syncedUntil: text('synced_until'),
  gapOpenedAt: integer('gap_opened_at'),
  /** The `at` of the last baseline, and when it ran. */
  baselineAt: text('baseline_at'),
  baselineRanAt: integer('baseline_ran_at'),
  lastAppliedAt: integer('last_applied_at'),
  updatedAt: integer('updated_at').notNull(),
});

export const resources = sqliteTable(
  'resources',
  {
    sourceId: integer('source_id')
      .notNull()
      .references(() => sources.id),
    uri: text('uri').notNull(),
    path: text('path').notNull(),
    sha256: text('sha256'),
    length: integer('length'),
    lastChangeKey: text('last_change_key'),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sourceId, t.uri] })],
);

export const events = sqliteTable(
  'events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sourceId: integer('source_id')
      .notNull()
      .references(() => sources.id),
    at: integer('at').notNull(),
    uri: text('uri').notNull(),
    change: text('change').notNull(),
    /** written | deleted | skipped | failed */
    outcome: text('outcome').notNull(),
    errorCode: text('error_code'),
    error: text('error'),
  },
  (t) => [
    index('events_source_idx').on(t.sourceId, t.id),
    // pruneHistory finds the rows past the retention by time: without it each prune read every
    // row the source kept, on the daemon's thread (84 ms per 500,000 rows, with nothing to delete).
    index('events_source_at_idx').on(t.sourceId, t.at),
  ],
);

export const catchups = sqliteTable(
  'catchups',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sourceId: integer('source_id')
      .notNull()
      .references(() => sources.id),
    /** gap | startup | poll | manual | baseline */
    reason: text('reason').notNull(),
    from: text('from_at'),
    to: text('to_at'),
    /** running | done | partial | failed | history-gone */
    state: text('state').notNull(),
    attempts: integer('attempts').notNull().default(1),
    changes: integer('changes').notNull().default(0),
    startedAt: integer('started_at').notNull(),
    finishedAt: integer('finished_at'),
    lastError: text('last_error'),
  },
  (t) => [index('catchups_source_idx').on(t.sourceId, t.id)],
);
