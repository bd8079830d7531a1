// What the PostgreSQL engine's query modules (tenants.ts, intents.ts, upkeep.ts) share with the
// repository: the pool, drizzle over it, and the repository's call/transaction/notify wrappers
// (a lost database becomes RSN_STORE_UNAVAILABLE; pg_notify rides the committing transaction).
import type pg from 'pg';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type * as schema from './schema.js';
import type { StoreEvent } from './events.js';

export type Db = NodePgDatabase<typeof schema>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export interface PgContext {
  readonly db: Db;
  readonly pool: pg.Pool;
  call<T>(fn: () => Promise<T>): Promise<T>;
  tx<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  notify(tx: { execute: Db['execute'] }, event: StoreEvent): Promise<unknown>;
}

/**
 * Runs `fn` in one transaction on a pooled client of its own: BEGIN, COMMIT, ROLLBACK if it throws,
 * the client released either way. For what drizzle's transaction cannot carry: unnest batches,
 * binary parameters, named statements and row locks taken with raw SQL.
 */
export async function inClientTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
