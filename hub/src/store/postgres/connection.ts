// Connecting to PostgreSQL: URL parsing, a pool with the hub's settings, one clear line for each way
// a connection fails (host unreachable, wrong password, missing database), and the migrations
// applied at start under an advisory lock so several processes can start at the same moment.
import pg from 'pg';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { fileURLToPath } from 'node:url';
import { StoreError } from '../errors.js';

// Same relative path from src/store/postgres and dist/store/postgres.
const migrationsFolder = fileURLToPath(new URL('../../../drizzle-pg', import.meta.url));

/** Key of the session advisory lock that serialises migrations across processes. */
const MIGRATION_LOCK = 72_640_001;

export interface PgTarget {
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly user: string;
  /** host:port/database, never the password: safe for logs and error messages. */
  readonly display: string;
}

/** Where a postgres:// URL points, without its password. */
export function describePgUrl(url: string): PgTarget {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new StoreError(
      'RSN_STORE_BAD_URL',
      'invalid PostgreSQL URL (expected postgres://user:password@host:port/database)',
    );
  }
  const host = decodeURIComponent(u.hostname) || u.searchParams.get('host') || 'localhost';
  const port = u.port ? Number(u.port) : 5432;
  const database =
    decodeURIComponent(u.pathname.replace(/^\//, '')) ||
    decodeURIComponent(u.username) ||
    'postgres';
  const user = decodeURIComponent(u.username) || process.env.PGUSER || 'postgres';
  return { host, port, database, user, display: `${host}:${port}/${database}` };
}

// bigint (int8) columns hold epoch milliseconds and ids: read them as numbers, not strings.
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20
      ? (v: string) => Number(v)
      : (pg.types.getTypeParser(oid, format) as (
          v: string,
        ) => unknown)) as typeof pg.types.getTypeParser,
};

export function clientConfig(url: string): pg.ClientConfig {
  return {
    connectionString: url,
    types,
    connectionTimeoutMillis: 5_000,
    keepAlive: true,
    application_name: 'rsnotify-hub',
  };
}

export function createPool(url: string, max: number): pg.Pool {
  // connectionTimeoutMillis also bounds the wait for a free pooled client: generous, so a burst of
  // deliveries reading bodies queues instead of failing on a loaded machine.
  return new pg.Pool({
    ...clientConfig(url),
    connectionTimeoutMillis: 15_000,
    max,
    idleTimeoutMillis: 30_000,
  });
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

/** True when an error means the database cannot be reached (as opposed to a bad query or row). */
export function isUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | undefined;
  if (!e) return false;
  if (e.code && UNAVAILABLE_CODES.has(e.code)) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i.test(
    e.message ?? '',
  );
}

/** One clear line for a failed connection: what failed and where, never the password. */
export function connectionError(err: unknown, target: PgTarget): StoreError {
  const e = err as { code?: string; message?: string };
  const where = `PostgreSQL at ${target.host}:${target.port}`;
  switch (e.code) {
    case '28P01':
      return new StoreError(
        'RSN_STORE_AUTH_FAILED',
        `${where} refused the password of user "${target.user}"`,
        { cause: err, details: { host: target.host } },
      );
    case '28000':
      return new StoreError(
        'RSN_STORE_AUTH_FAILED',
        `${where} refused user "${target.user}" (no pg_hba.conf entry or no such role)`,
        { cause: err, details: { host: target.host } },
      );
    case '3D000':
      return new StoreError(
        'RSN_STORE_NO_DATABASE',
        `database "${target.database}" does not exist on ${where} (create it with createdb)`,
        { cause: err, details: { host: target.host } },
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new StoreError(
        'RSN_STORE_UNREACHABLE',
        `cannot resolve PostgreSQL host "${target.host}"`,
        { cause: err, details: { host: target.host } },
      );
    case 'ECONNREFUSED':
      return new StoreError(
        'RSN_STORE_UNREACHABLE',
        `cannot reach ${where}: connection refused (is the server running and listening there?)`,
        { cause: err, details: { host: target.host } },
      );
    default:
      if (isUnavailable(err)) {
        return new StoreError(
          'RSN_STORE_UNREACHABLE',
          `cannot reach ${where}: ${e.message ?? e.code ?? 'connection failed'}`,
          { cause: err, details: { host: target.host } },
        );
      }
      return new StoreError(
        'RSN_STORE_OPEN_FAILED',
        `cannot open the hub database on ${where}: ${e.message ?? String(err)}`,
        { cause: err, details: { host: target.host } },
      );
  }
}

/** Connects once (so a bad URL, password or database fails with one clear line) and migrates. */
export async function connectAndMigrate(url: string, target: PgTarget): Promise<void> {
  const client = new pg.Client(clientConfig(url));
  client.on('error', () => undefined); // reported through the failing call below
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw connectionError(err, target);
  }
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await migrate(drizzle(client), { migrationsFolder });
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    }
  } catch (err) {
    if (err instanceof StoreError) throw err;
    throw isUnavailable(err)
      ? connectionError(err, target)
      : new StoreError(
          'RSN_STORE_MIGRATION_FAILED',
          `migrating the hub database on ${target.display} failed: ${(err as Error).message}`,
          { cause: err },
        );
  } finally {
    await client.end().catch(() => undefined);
  }
}
