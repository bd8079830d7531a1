// What the SQLite engine's query modules (tenants.ts, intents.ts) share with the repository: the
// connection (for transactions) and drizzle over it.
import type Database from 'better-sqlite3';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import type * as schema from '../schema.js';

export interface SqliteContext {
  readonly sqlite: Database.Database;
  readonly db: BetterSQLite3Database<typeof schema>;
}
