// --db names the store: a postgres:// (or postgresql://) URL selects PostgreSQL, anything without a
// URL scheme is a SQLite file path. Any other scheme is refused: it is a typo or an engine the hub
// does not have, never a file name.
import type { HubRepository } from './repository.js';
import { StoreError } from './errors.js';
import { openSqliteRepository } from './sqlite/index.js';
import { openPostgresRepository, type PostgresRepository } from './postgres/index.js';

export type DbLocation =
  | { readonly engine: 'sqlite'; readonly file: string }
  | { readonly engine: 'postgres'; readonly url: string };

/** Pure: what --db names. Windows drive letters (C:\...) are paths, not schemes. */
export function parseDbLocation(db: string): DbLocation {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(db)?.[1];
  if (scheme === undefined || /^[A-Za-z]:[\\/]/.test(db)) return { engine: 'sqlite', file: db };
  const s = scheme.toLowerCase();
  if (s === 'postgres' || s === 'postgresql') return { engine: 'postgres', url: db };
  if (s === 'file' || s === 'sqlite') {
    throw new StoreError(
      'RSN_STORE_BAD_URL',
      `--db ${s}: URLs are not supported; give the SQLite file as a plain path`,
    );
  }
  throw new StoreError(
    'RSN_STORE_BAD_URL',
    `--db scheme "${s}:" is not supported: use postgres://user@host:port/dbname for PostgreSQL or a file path for SQLite`,
  );
}

export async function openRepository(
  db: string,
  options: { listen?: boolean; poolSize?: number } = {},
): Promise<HubRepository | PostgresRepository> {
  const where = parseDbLocation(db);
  return where.engine === 'sqlite'
    ? openSqliteRepository(where.file)
    : openPostgresRepository(where.url, options);
}
