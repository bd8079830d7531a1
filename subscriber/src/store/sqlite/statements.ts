// Prepared statements for the per-notification queries (inbox row and state, resource rows, events
// and their running totals, position). The query builder re-builds and re-prepares its SQL on every
// call, which cost more CPU than the write itself on the intake path; these are prepared once per
// connection (per distinct column set) and reused. Column names come from the drizzle schema, so
// the schema stays the one place they are spelled. Drizzle keeps the cold queries.
import type Database from 'better-sqlite3';
import { getTableColumns } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { StoreError } from '../../errors/index.js';

export class StatementCache {
  private readonly statements = new Map<string, Database.Statement>();
  private readonly byKey = new Map<string, Database.Statement>();

  constructor(private readonly sqlite: Database.Database) {}

  get(sqlText: string): Database.Statement {
    let s = this.statements.get(sqlText);
    if (!s) {
      s = this.sqlite.prepare(sqlText);
      this.statements.set(sqlText, s);
    }
    return s;
  }

  /**
   * The statement cached under `key` (e.g. a patch's column set), its SQL built by `build` only
   * the first time: building the text from the schema on every call showed in intake profiles.
   */
  keyed(key: string, build: () => string): Database.Statement {
    let s = this.byKey.get(key);
    if (!s) {
      s = this.get(build());
      this.byKey.set(key, s);
    }
    return s;
  }
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The SQL column names of `keys` (property names of the drizzle table). */
export function columnNames(table: SQLiteTable, keys: readonly string[]): string[] {
  const columns = getTableColumns(table) as Record<string, { name: string }>;
  return keys.map((k) => {
    const c = columns[k];
    if (!c) throw new StoreError('RSN_STORE_NO_COLUMN', `no column for property ${k}`);
    return quote(c.name);
  });
}

/** UPDATE <table> SET <keys> = ? ... WHERE <where> (`where` already SQL, with its own ?s). */
export function updateSql(
  table: SQLiteTable,
  tableName: string,
  keys: readonly string[],
  where: string,
): string {
  const sets = columnNames(table, keys)
    .map((c) => `${c} = ?`)
    .join(', ');
  return `UPDATE ${quote(tableName)} SET ${sets} WHERE ${where}`;
}

/** INSERT INTO <table> (<keys>) VALUES (?, ...). */
export function insertSql(table: SQLiteTable, tableName: string, keys: readonly string[]): string {
  const cols = columnNames(table, keys);
  return `INSERT INTO ${quote(tableName)} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`;
}

/** INSERT ... ON CONFLICT (<target>) DO UPDATE SET <each non-target column> = excluded.<column>. */
export function upsertSql(
  table: SQLiteTable,
  tableName: string,
  keys: readonly string[],
  target: readonly string[],
): string {
  const cols = columnNames(table, keys);
  const targetCols = columnNames(table, target);
  const updates = cols.filter((c) => !targetCols.includes(c)).map((c) => `${c} = excluded.${c}`);
  const values = cols.map(() => '?').join(', ');
  return (
    `INSERT INTO ${quote(tableName)} (${cols.join(', ')}) VALUES (${values}) ` +
    `ON CONFLICT (${targetCols.join(', ')}) DO UPDATE SET ${updates.join(', ')}`
  );
}
