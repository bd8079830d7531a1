// What every query group of the SQLite store shares: the drizzle handle over the better-sqlite3
// connection, the group commit (durable writes batched) and the prepared-statement cache, plus the
// row helpers (SQL nulls become absent fields, absent patch fields become nulls).
import type Database from 'better-sqlite3';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import type * as schema from '../schema.js';
import type { GroupCommit } from './group-commit.js';
import type { StatementCache } from './statements.js';

export type Db = BetterSQLite3Database<typeof schema>;

export interface StoreContext {
  readonly db: Db;
  readonly sqlite: Database.Database;
  readonly group: GroupCommit;
  readonly statements: StatementCache;
}

/** One concept's queries (sources, inbox, ...) over the shared connection. */
export abstract class StoreQueries {
  protected readonly db: Db;
  protected readonly sqlite: Database.Database;
  protected readonly group: GroupCommit;
  protected readonly statements: StatementCache;

  constructor(ctx: StoreContext) {
    this.db = ctx.db;
    this.sqlite = ctx.sqlite;
    this.group = ctx.group;
    this.statements = ctx.statements;
  }
}

/** null -> undefined, so records carry optional fields rather than nulls. */
export function clean<T extends object>(
  row: T,
): { [K in keyof T]: Exclude<T[K], null> | undefined } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) if (v !== null) out[k] = v;
  return out as { [K in keyof T]: Exclude<T[K], null> | undefined };
}

/** undefined -> null for patches, only for keys present. */
export function nullify<T extends object>(patch: T): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(patch)) out[k] = v === undefined ? null : v;
  return out;
}
