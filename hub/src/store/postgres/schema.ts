// Drizzle schema of the hub's PostgreSQL store: the same tables, columns and indexes as the SQLite
// schema (../schema.ts), column for column, so one repository contract holds for both. Times are
// epoch milliseconds in bigint columns read as JS numbers. The last three tables exist only here:
// they coordinate several hub processes on one database (hub/src/cluster/).
import {
  pgTable,
  integer,
  bigint,
  text,
  index,
  uniqueIndex,
  customType,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });
const ms = (name: string) => bigint(name, { mode: 'number' });

export const sources = pgTable(
  'sources',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    name: text('name').notNull(),
    /** sha256 hex of the publish token; the token itself is never stored (RT-5). */
    tokenHash: text('token_hash').notNull(),
    createdAt: ms('created_at').notNull(),
  },
  (t) => [uniqueIndex('sources_name_unique').on(t.name)],
);

export const sourcePrefixes = pgTable(
  'source_prefixes',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    sourceId: integer('source_id')
      .notNull()
      .references((): AnyPgColumn => sources.id, { onDelete: 'cascade' }),
    prefix: text('prefix').notNull(),
  },
  (t) => [uniqueIndex('source_prefixes_prefix_unique').on(t.prefix)],
);

/** WH-14: a Source may restrict which callbacks may subscribe to its channels. */
export const sourceCallbackPrefixes = pgTable(
  'source_callback_prefixes',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    sourceId: integer('source_id')
      .notNull()
      .references((): AnyPgColumn => sources.id, { onDelete: 'cascade' }),
    prefix: text('prefix').notNull(),
  },
  (t) => [index('source_callback_prefixes_source').on(t.sourceId)],
);

export const topics = pgTable(
  'topics',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    url: text('url').notNull(),
    lastSeq: integer('last_seq').notNull().default(0),
    createdAt: ms('created_at').notNull(),
  },
  (t) => [uniqueIndex('topics_url_unique').on(t.url)],
);

export const subscriptions = pgTable(
  'subscriptions',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    topicId: integer('topic_id')
      .notNull()
      .references((): AnyPgColumn => topics.id),
    topicAsGiven: text('topic_as_given').notNull(),
    callback: text('callback').notNull(),
    secret: text('secret'),
    algorithm: text('algorithm').notNull().default('sha256'),
    leaseSeconds: integer('lease_seconds').notNull(),
    leaseExpiresAt: ms('lease_expires_at').notNull(),
    deliveredSeq: integer('delivered_seq').notNull(),
    nextAttemptAt: ms('next_attempt_at').notNull().default(0),
    attempts: integer('attempts').notNull().default(0),
    firstFailedAt: ms('first_failed_at'),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    createdAt: ms('created_at').notNull(),
    updatedAt: ms('updated_at').notNull(),
  },
  (t) => [uniqueIndex('subscriptions_topic_callback_unique').on(t.topicId, t.callback)],
);

export const intents = pgTable(
  'intents',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    mode: text('mode', { enum: ['subscribe', 'unsubscribe', 'denied'] }).notNull(),
    topicUrl: text('topic_url').notNull(),
    topicAsGiven: text('topic_as_given').notNull(),
    callback: text('callback').notNull(),
    secret: text('secret'),
    leaseSeconds: integer('lease_seconds'),
    reason: text('reason'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ms('next_attempt_at').notNull(),
    createdAt: ms('created_at').notNull(),
  },
  (t) => [
    index('intents_due').on(t.nextAttemptAt),
    index('intents_pair').on(t.topicUrl, t.callback),
  ],
);

export const notifications = pgTable(
  'notifications',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    topicId: integer('topic_id')
      .notNull()
      .references((): AnyPgColumn => topics.id),
    seq: integer('seq').notNull(),
    receivedAt: ms('received_at').notNull(),
    contentType: text('content_type').notNull(),
    linkHeader: text('link_header').notNull(),
    /** Empty when the body is stored in parts (`payloadId` set): see notificationParts. */
    body: bytea('body').notNull(),
    payloadId: bigint('payload_id', { mode: 'number' }),
  },
  (t) => [
    uniqueIndex('notifications_topic_seq_unique').on(t.topicId, t.seq),
    uniqueIndex('notifications_payload_unique').on(t.payloadId),
  ],
);

/**
 * The body of a large notification in parts (service-kit's bodyParts), written in the
 * transaction that inserts its notification row, one statement a part; removed with the row by
 * the foreign key (which is why only this engine has a unique index on notifications.payload_id).
 */
export const notificationParts = pgTable(
  'notification_parts',
  {
    payloadId: bigint('payload_id', { mode: 'number' })
      .notNull()
      .references((): AnyPgColumn => notifications.payloadId, { onDelete: 'cascade' }),
    part: integer('part').notNull(),
    bytes: bytea('bytes').notNull(),
    createdAt: ms('created_at').notNull(),
  },
  (t) => [uniqueIndex('notification_parts_payload_part').on(t.payloadId, t.part)],
);

export const givenUp = pgTable(
  'given_up',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    subscriptionId: integer('subscription_id').notNull(),
    topicId: integer('topic_id').notNull(),
    callback: text('callback').notNull(),
    seq: integer('seq').notNull(),
    reason: text('reason').notNull(),
    at: ms('at').notNull(),
  },
  (t) => [index('given_up_subscription').on(t.subscriptionId)],
);

// --- cluster coordination (PostgreSQL only) ----------------------------------------------------

/** Each running hub process; a row whose heartbeat is older than the claim TTL is a dead process. */
export const hubNodes = pgTable('hub_nodes', {
  id: text('id').primaryKey(),
  startedAt: ms('started_at').notNull(),
  heartbeatAt: ms('heartbeat_at').notNull(),
});

/** Which process drives a subscription's cursor; valid until expires_at, renewed by heartbeat. */
export const deliveryClaims = pgTable(
  'delivery_claims',
  {
    subscriptionId: integer('subscription_id')
      .primaryKey()
      .references((): AnyPgColumn => subscriptions.id, { onDelete: 'cascade' }),
    nodeId: text('node_id').notNull(),
    expiresAt: ms('expires_at').notNull(),
  },
  (t) => [index('delivery_claims_node').on(t.nodeId)],
);

/** RT-6 topic checks: at most one per topic per interval across the cluster. */
export const topicChecks = pgTable('topic_checks', {
  url: text('url').primaryKey(),
  checkedAt: ms('checked_at').notNull(),
});
