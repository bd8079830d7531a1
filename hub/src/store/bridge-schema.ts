// Drizzle schema of the poll-to-push bridge's state (SQLite). One row per bridged Source and one per
// Change List it has read, so a restarted hub resumes exactly where the last committed poll ended:
// the list positions and the coverage move in the same transaction as the notifications they made.
// Times are epoch milliseconds; W3C datetimes are stored in their lexical form.
import {
  sqliteTable,
  integer,
  text,
  uniqueIndex,
  type AnySQLiteColumn,
} from 'drizzle-orm/sqlite-core';

export const bridgeSources = sqliteTable(
  'bridge_sources',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    /** What the operator gave: a base URL, Source Description or Capability List. */
    pollUrl: text('poll_url').notNull(),
    intervalMs: integer('interval_ms').notNull(),
    capabilityListUrl: text('capability_list_url'),
    /** The Change List or Change List Index discovery found. */
    changeListUrl: text('change_list_url'),
    discoveredAt: integer('discovered_at'),
    indexEtag: text('index_etag'),
    indexLastModified: text('index_last_modified'),
    /** Everything up to here has been published (or was there before the bridge started). */
    coveredTo: text('covered_to'),
    /** `from` of the next notification: the last one's `until`, or where proven coverage restarted. */
    chainFrom: text('chain_from'),
    lastPollAt: integer('last_poll_at'),
    lastError: text('last_error'),
    /** Moves with every committed poll: a commit from an older read is refused (no double publish). */
    generation: integer('generation').notNull().default(0),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('bridge_sources_name_unique').on(t.name)],
);

export const bridgeLists = sqliteTable(
  'bridge_lists',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    bridgeSourceId: integer('bridge_source_id')
      .notNull()
      .references((): AnySQLiteColumn => bridgeSources.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    /** Position in the index (RC-24: forward chronological order). */
    ord: integer('ord').notNull(),
    listFrom: text('list_from'),
    listUntil: text('list_until'),
    /** Entries of this list already turned into notifications (or present when the bridge began). */
    consumed: integer('consumed').notNull().default(0),
    /** uri, time and change of the last consumed entry: detects a list rewritten under us. */
    lastKey: text('last_key'),
    /** Closed and read to its end: never fetched again. */
    complete: integer('complete', { mode: 'boolean' }).notNull().default(false),
    coveredTo: text('covered_to'),
    etag: text('etag'),
    lastModified: text('last_modified'),
  },
  (t) => [uniqueIndex('bridge_lists_source_url_unique').on(t.bridgeSourceId, t.url)],
);
