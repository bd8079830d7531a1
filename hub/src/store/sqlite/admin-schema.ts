// Drizzle schema of the operator console's tables in the hub's SQLite store. Kept apart from the
// protocol tables: nothing on the publish or delivery path reads them. Times are epoch milliseconds.
import {
  sqliteTable,
  integer,
  text,
  index,
  uniqueIndex,
  type AnySQLiteColumn,
} from 'drizzle-orm/sqlite-core';

/** Operator credentials for /admin: only the sha256 of each token is kept. */
export const adminTokens = sqliteTable(
  'admin_tokens',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull(),
    createdAt: integer('created_at').notNull(),
    lastUsedAt: integer('last_used_at'),
  },
  (t) => [
    uniqueIndex('admin_tokens_name_unique').on(t.name),
    uniqueIndex('admin_tokens_hash_unique').on(t.tokenHash),
  ],
);

/** Console log-ins: the cookie holds a random id, the store only its hash (shared by every hub process). */
export const adminSessions = sqliteTable(
  'admin_sessions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sessionHash: text('session_hash').notNull(),
    adminTokenId: integer('admin_token_id')
      .notNull()
      .references((): AnySQLiteColumn => adminTokens.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [uniqueIndex('admin_sessions_hash_unique').on(t.sessionHash)],
);

/** Refused requests at the hub endpoint, newest kept, for the console's "recent rejections". */
export const adminRejections = sqliteTable(
  'admin_rejections',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    at: integer('at').notNull(),
    status: integer('status').notNull(),
    /** 'publish', 'subscribe', 'unsubscribe' or 'request' when the body was never understood. */
    kind: text('kind').notNull(),
    /** The refusal's first line, with URLs already redacted to origin + short hash. */
    reason: text('reason').notNull(),
  },
  (t) => [index('admin_rejections_at').on(t.at)],
);
