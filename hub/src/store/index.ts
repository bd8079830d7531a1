// store/: the hub's persistence. The repository interface (domain nouns) and its two engines:
// SQLite (the zero-setup default: better-sqlite3, schema ./schema.ts, migrations in hub/drizzle) and
// PostgreSQL (several hub processes on one database: node-postgres, schema ./postgres/schema.ts,
// migrations in hub/drizzle-pg). `openRepository(db)` picks the engine from --db.
//
// Adding a table (or a column) means doing it for BOTH engines, in the same change:
//   1. SQLite: add it to ./schema.ts, run `pnpm --filter @rsnotify/hub db:generate` (writes hub/drizzle/).
//   2. PostgreSQL: add the same table to ./postgres/schema.ts (pgTable, `ms()` for epoch-ms times,
//      `bytea` for blobs, generatedByDefaultAsIdentity() ids), run
//      `pnpm --filter @rsnotify/hub db:generate:pg` (writes hub/drizzle-pg/).
//   3. Add the methods to the HubRepository interface (./repository.ts) or to an engine-neutral
//      interface of its own, implement them in ./sqlite/index.ts and ./postgres/index.ts, and add
//      cases to hub/test/repository-contract.ts: that suite runs unchanged against both engines
//      (hub/test/store-sqlite.test.ts, hub/test/store-postgres.test.ts).
//   4. If another hub process must react to a change, send a StoreEvent with pg_notify inside the
//      same transaction (./postgres/events.ts); SQLite has one process and needs nothing.
// Both engines apply their migrations at open (PostgreSQL under an advisory lock).
export type * from './repository.js';
export type * from './bridge-repository.js';
export { StoreError, isStoreUnavailable } from './errors.js';
export { openSqliteRepository, openSqliteStores, type OpenSqliteOptions } from './sqlite/index.js';
export { openPostgresRepository, type PostgresRepository } from './postgres/index.js';
export type {
  ClaimedSubscription,
  HeartbeatResult,
  LeaderLock,
  PgClusterStore,
} from './postgres/cluster.js';
export type { StoreEvent } from './postgres/events.js';
export { describePgUrl } from './postgres/connection.js';
export { openRepository, parseDbLocation, type DbLocation } from './open.js';
export { openAdminStore } from './admin.js';
export type {
  AdminStore,
  AdminTokenRecord,
  ClusterCounters,
  GivenUpRecord,
  RejectionRecord,
  SubscriptionDeliveryRow,
  TopicStats,
} from './admin-contract.js';
