// store/: the hub's persistence. The repository interface (domain nouns) and its engines; today
// SQLite (better-sqlite3 + drizzle migrations in hub/drizzle), later PostgreSQL behind the same contract.
export type * from './repository.js';
export { openSqliteRepository, openSqliteStores, StoreError } from './sqlite/index.js';
export type * from './bridge-repository.js';
