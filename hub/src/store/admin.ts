// The console's AdminStore on whichever engine --db names (see open.ts): the same tables in both
// (sqlite/admin-schema.ts, postgres/admin-schema.ts), created by each engine's migrations.
import type { AdminStore } from './admin-contract.js';
import { parseDbLocation } from './open.js';
import { openPostgresAdminStore } from './postgres/admin.js';
import { openSqliteAdminStore } from './sqlite/admin.js';

export async function openAdminStore(db: string): Promise<AdminStore> {
  const where = parseDbLocation(db);
  return where.engine === 'sqlite'
    ? openSqliteAdminStore(where.file)
    : openPostgresAdminStore(where.url);
}
