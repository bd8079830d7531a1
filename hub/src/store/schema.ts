// Drizzle schema of the hub's SQLite store. Times are epoch milliseconds.
// Topic URLs are stored twice where it matters: `url` is the WH-6 normalised key, and the
// subscription keeps the topic exactly as the subscriber gave it (WH-11 echoes it verbatim).
import {
  sqliteTable,
  integer,
  text,
  blob,
  index,
  uniqueIndex,
  type AnySQLiteColumn,
} from 'drizzle-orm/sqlite-core';

export const sources = sqliteTable(
  'sources',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    /** sha256 hex of the publish token; the token itself is never stored (RT-5). */
    tokenHash: text('token_hash').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('sources_name_unique').on(t.name)],
);

export const sourcePrefixes = sqliteTable(
  'source_prefixes',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sourceId: integer('source_id')
      .notNull()
      .references((): AnySQLiteColumn => sources.id, { onDelete: 'cascade' }),
    prefix: text('prefix').notNull(),
  },
  (t) => [uniqueIndex('source_prefixes_prefix_unique').on(t.prefix)],
);

/** WH-14: a Source may restrict which callbacks may subscribe to its channels. */
export const sourceCallbackPrefixes = sqliteTable(
  'source_callback_prefixes',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sourceId: integer('source_id')
      .notNull()
      .references((): AnySQLiteColumn => sources.id, { onDelete: 'cascade' }),
    prefix: text('prefix').notNull(),
  },
  (t) => [index('source_callback_prefixes_source').on(t.sourceId)],
);

export const topics = sqliteTable(
  'topics',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    url: text('url').notNull(),
    /**
     * At least the topic's last seq: the engine reads the end from the topic's notifications and
     * writes it here before pruning them (sqlite/topic-ends.ts).
     */
    lastSeq: integer('last_seq').notNull().default(0),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('topics_url_unique').on(t.url)],
);

export const subscriptions = sqliteTable(
  'subscriptions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    topicId: integer('topic_id')
      .notNull()
      .references((): AnySQLiteColumn => topics.id),
    /** hub.topic exactly as the subscriber sent it. */
    topicAsGiven: text('topic_as_given').notNull(),
    callback: text('callback').notNull(),
    secret: text('secret'),
    algorithm: text('algorithm').notNull().default('sha256'),
    leaseSeconds: integer('lease_seconds').notNull(),
    leaseExpiresAt: integer('lease_expires_at').notNull(),
    /** The cursor: every notification of the topic with seq <= deliveredSeq is done (delivered or given up). */
    deliveredSeq: integer('delivered_seq').notNull(),
    nextAttemptAt: integer('next_attempt_at').notNull().default(0),
    attempts: integer('attempts').notNull().default(0),
    firstFailedAt: integer('first_failed_at'),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [uniqueIndex('subscriptions_topic_callback_unique').on(t.topicId, t.callback)],
);

/** Pending verifications of intent (and denials) not yet carried out (WH-3, WH-11, WH-14). */
export const intents = sqliteTable(
  'intents',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    mode: text('mode', { enum: ['subscribe', 'unsubscribe', 'denied'] }).notNull(),
    topicUrl: text('topic_url').notNull(),
    topicAsGiven: text('topic_as_given').notNull(),
    callback: text('callback').notNull(),
    secret: text('secret'),
    leaseSeconds: integer('lease_seconds'),
    reason: text('reason'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    index('intents_due').on(t.nextAttemptAt),
    index('intents_pair').on(t.topicUrl, t.callback),
  ],
);

/**
 * Accepted notifications, stored once per topic and shared by every subscription's cursor (M-5).
 * `id` is the rowid, not AUTOINCREMENT: nothing refers to it (a notification is (topic, seq)), and
 * AUTOINCREMENT's sqlite_sequence row was read and rewritten by every publish (~5 µs of ~20 per row).
 */
export const notifications = sqliteTable(
  'notifications',
  {
    id: integer('id').primaryKey(),
    topicId: integer('topic_id')
      .notNull()
      .references((): AnySQLiteColumn => topics.id),
    seq: integer('seq').notNull(),
    receivedAt: integer('received_at').notNull(),
    contentType: text('content_type').notNull(),
    /** The Link header as received (M-4), or one the hub built for a fetched topic (WH-17). */
    linkHeader: text('link_header').notNull(),
    /** Empty when the body is stored in parts (`payloadId` set): see notificationParts. */
    body: blob('body', { mode: 'buffer' }).notNull(),
    payloadId: integer('payload_id'),
  },
  (t) => [
    uniqueIndex('notifications_topic_seq_unique').on(t.topicId, t.seq),
    // Pruning walks the rows past the replay window by age (sqlite/upkeep.ts): without it every
    // prune read every row the hub kept, on its one thread.
    index('notifications_received_idx').on(t.receivedAt),
  ],
);

/**
 * The body of a large notification in parts, each written in its own short transaction so that no
 * single commit holds the event loop for the whole body. Parts are staged before their notification
 * row exists and become part of a notification only when the row naming their payload id commits
 * (promise 1); parts no row names are a publish that was never answered, swept by upkeep.
 */
export const notificationParts = sqliteTable(
  'notification_parts',
  {
    payloadId: integer('payload_id').notNull(),
    part: integer('part').notNull(),
    bytes: blob('bytes', { mode: 'buffer' }).notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('notification_parts_payload_part').on(t.payloadId, t.part)],
);

/** Notifications that a subscription never acknowledged within the retry age (promise 1). */
export const givenUp = sqliteTable(
  'given_up',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    subscriptionId: integer('subscription_id').notNull(),
    topicId: integer('topic_id').notNull(),
    callback: text('callback').notNull(),
    seq: integer('seq').notNull(),
    reason: text('reason').notNull(),
    at: integer('at').notNull(),
  },
  (t) => [index('given_up_subscription').on(t.subscriptionId)],
);
