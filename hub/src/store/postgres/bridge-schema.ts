// Drizzle schema of the poll-to-push bridge's state (PostgreSQL): the same tables and columns as the
// SQLite bridge schema (../bridge-schema.ts). `generation` moves with every committed poll, so a
// commit made from a position read before another process's commit is refused (one poll, one
// commit, whoever polled: a hand-over between processes neither repeats nor skips entries).
import {
  pgTable,
  integer,
  bigint,
  text,
  boolean,
  uniqueIndex,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';

const ms = (name: string) => bigint(name, { mode: 'number' });

export const bridgeSources = pgTable(
  'bridge_sources',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    name: text('name').notNull(),
    pollUrl: text('poll_url').notNull(),
    intervalMs: integer('interval_ms').notNull(),
    capabilityListUrl: text('capability_list_url'),
    changeListUrl: text('change_list_url'),
    discoveredAt: ms('discovered_at'),
    indexEtag: text('index_etag'),
    indexLastModified: text('index_last_modified'),
    coveredTo: text('covered_to'),
    chainFrom: text('chain_from'),
    lastPollAt: ms('last_poll_at'),
    lastError: text('last_error'),
    generation: integer('generation').notNull().default(0),
    createdAt: ms('created_at').notNull(),
  },
  (t) => [uniqueIndex('bridge_sources_name_unique').on(t.name)],
);

export const bridgeLists = pgTable(
  'bridge_lists',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    bridgeSourceId: integer('bridge_source_id')
      .notNull()
      .references((): AnyPgColumn => bridgeSources.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    ord: integer('ord').notNull(),
    listFrom: text('list_from'),
    listUntil: text('list_until'),
    consumed: integer('consumed').notNull().default(0),
    lastKey: text('last_key'),
    complete: boolean('complete').notNull().default(false),
    coveredTo: text('covered_to'),
    etag: text('etag'),
    lastModified: text('last_modified'),
  },
  (t) => [uniqueIndex('bridge_lists_source_url_unique').on(t.bridgeSourceId, t.url)],
);
