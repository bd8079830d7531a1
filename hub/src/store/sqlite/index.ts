// The SQLite engine of the hub store: better-sqlite3 in WAL mode, drizzle for the schema, the
// migrations and the cold queries, and prepared statements on the hot paths (publish, cursor batch,
// notification read). synchronous=NORMAL in WAL survives a process crash (kill -9), which is what
// promise 1 needs; only a power loss can take back the last commits.
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { chmodSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  describeOpenFailure,
  prepareDatabaseFile,
  SQLITE_AUTOCHECKPOINT_PAGES,
  startCheckpointer,
} from '@rsnotify/service-kit';
import { fileURLToPath } from 'node:url';
import { StoreError } from '../errors.js';
import * as schema from '../schema.js';
import type { HubRepository } from '../repository.js';
import type { BridgeRepository } from '../bridge-repository.js';
import { createSqliteBridgeRepository } from './bridge.js';
import { SqliteRepository } from './repository.js';
import { TopicEnds } from './topic-ends.js';

// Same relative path from src/store/sqlite and dist/store/sqlite.
const migrationsFolder = fileURLToPath(new URL('../../../drizzle', import.meta.url));

export { StoreError };

/** The driver the checkpoint worker loads (service-kit has none of its own). */
const driver = createRequire(import.meta.url).resolve('better-sqlite3');

/**
 * close() closes the connection at once (a caller that does not await it finds the store closed);
 * its promise resolves once the checkpoint worker has ended, which a daemon's shutdown awaits.
 */
export type SqliteHubRepository = Omit<HubRepository, 'close'> & { close(): Promise<void> };

export interface OpenSqliteOptions {
  /** The checkpoint worker failed: the connection checkpoints by itself again (the daemon logs it). */
  readonly onCheckpointFailed?: (reason: string) => void;
}

export function openSqliteRepository(
  file: string,
  options: OpenSqliteOptions = {},
): SqliteHubRepository {
  return openSqliteStores(file, options).repository;
}

/** The hub repository and the bridge's store on one connection (one transaction can span both). */
export function openSqliteStores(
  file: string,
  options: OpenSqliteOptions = {},
): {
  repository: SqliteHubRepository;
  bridge: BridgeRepository;
} {
  let sqlite: Database.Database;
  try {
    // Directory 0700 and file 0600 when created here (the file holds hub.secret values).
    if (!file.startsWith('file:')) prepareDatabaseFile(file);
    sqlite = new Database(file);
    // The file holds subscriber secrets: owner-only (the WAL and shm files inherit its mode).
    if (file !== ':memory:' && !file.startsWith('file:')) chmodSync(file, 0o600);
  } catch (err) {
    const why = describeOpenFailure(err);
    throw new StoreError('RSN_STORE_OPEN_FAILED', `cannot open hub database ${file}: ${why}`, {
      cause: err,
      details: { file, errno: (err as { code?: string }).code },
    });
  }
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const db: BetterSQLite3Database<typeof schema> = drizzle(sqlite, { schema });
  migrate(db, { migrationsFolder });
  const inMemory = file === ':memory:' || file.startsWith('file:');
  // WAL checkpoints on a worker thread, not inside the commit on the event loop (see service-kit's
  // checkpointer.ts). close() closes this connection at once and resolves when the worker has ended
  // (its connection, then the last one, checkpoints what is left and removes the WAL).
  // Under sustained publishing and cursor batches the hub commits faster than a checkpoint on
  // another connection completes, so the WAL restarts only when this connection catches up itself.
  const checkpointer = inMemory
    ? undefined
    : startCheckpointer(sqlite, {
        file,
        driver,
        restartPages: 4 * SQLITE_AUTOCHECKPOINT_PAGES,
        ...(options.onCheckpointFailed ? { onFailed: options.onCheckpointFailed } : {}),
      });
  // One record of where each topic ends for both stores: they append to the same topics.
  const topicEnds = new TopicEnds(sqlite);
  return {
    repository: new SqliteRepository(sqlite, db, topicEnds, () =>
      checkpointer ? checkpointer.stop() : Promise.resolve(),
    ),
    bridge: createSqliteBridgeRepository(sqlite, topicEnds),
  };
}
