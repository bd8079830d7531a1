// Drizzle schema of the operator console's tables in the hub's PostgreSQL store: the same tables as
// the SQLite engine's (../sqlite/admin-schema.ts), column for column. Times are epoch milliseconds.
import {
  pgTable,
  integer,
  bigint,
  text,
  index,
  uniqueIndex,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';

const ms = (name: string) => bigint(name, { mode: 'number' });

export const adminTokens = pgTable(
  'admin_tokens',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull(),
    createdAt: ms('created_at').notNull(),
    lastUsedAt: ms('last_used_at'),
  },
  (t) => [
    uniqueIndex('admin_tokens_name_unique').on(t.name),
    uniqueIndex('admin_tokens_hash_unique').on(t.tokenHash),
  ],
);

export const adminSessions = pgTable(
  'admin_sessions',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    sessionHash: text('session_hash').notNull(),
    adminTokenId: integer('admin_token_id')
      .notNull()
      .references((): AnyPgColumn => adminTokens.id, { onDelete: 'cascade' }),
    createdAt: ms('created_at').notNull(),
    expiresAt: ms('expires_at').notNull(),
  },
  (t) => [uniqueIndex('admin_sessions_hash_unique').on(t.sessionHash)],
);

export const adminRejections = pgTable(
  'admin_rejections',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    at: ms('at').notNull(),
    status: integer('status').notNull(),
    kind: text('kind').notNull(),
    reason: text('reason').notNull(),
  },
  (t) => [index('admin_rejections_at').on(t.at)],
);
