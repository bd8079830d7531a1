// The WAL checkpoint worker both daemons use (@rsnotify/service-kit's checkpointer), on real SQLite
// files and a real worker thread: while it runs the connection never checkpoints by itself and the
// worker copies the WAL into the database file; a worker that fails gives the connection its
// automatic checkpoint back and says why; stop() ends the worker's connection before the caller
// closes its own. Tested here because service-kit has no SQLite driver of its own (the hub's is used).
// Then through the real hub: a worker that dies is logged, and the hub's shutdown waits for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { startHub, type RunningHub } from '@rsnotify/hub';
import {
  startCheckpointer,
  SQLITE_AUTOCHECKPOINT_PAGES,
  type Checkpointer,
  type CheckpointerOptions,
} from '@rsnotify/service-kit';
import { logLines, tempDir, waitFor } from '@rsnotify/service-kit/testing';
import { createLogger } from '../src/observability/logger.js';

const driver = createRequire(import.meta.url).resolve('better-sqlite3');

async function walDatabase(t: { after: (fn: () => Promise<void> | void) => void }) {
  const dir = await tempDir('rsn-ckpt-');
  const file = join(dir.dir, 'db.sqlite');
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB NOT NULL)');
  t.after(async () => {
    if (sqlite.open) sqlite.close();
    await dir.remove();
  });
  const insert = sqlite.prepare('INSERT INTO blobs (body) VALUES (?)');
  /** Commits `mib` MiB in 64 KiB rows, one transaction each. */
  const write = (mib: number): void => {
    for (let i = 0; i < mib * 16; i++) insert.run(randomBytes(64 * 1024));
  };
  const failures: string[] = [];
  /** A checkpointer on this database (checkpointing every 20 ms), its failures in `failures`. */
  const start = (options: Partial<CheckpointerOptions> = {}): Checkpointer => {
    const worker = startCheckpointer(sqlite, {
      file,
      driver,
      intervalMs: 20,
      onFailed: (why) => failures.push(why),
      ...options,
    });
    t.after(() => worker.stop());
    return worker;
  };
  return { file, sqlite, write, start, failures };
}

const autocheckpoint = (sqlite: Database.Database): unknown =>
  sqlite.pragma('wal_autocheckpoint', { simple: true });

test('checkpointer: with the connection not checkpointing at all, the worker copies the WAL into the database file', async (t) => {
  const { file, sqlite, write, start, failures } = await walDatabase(t);
  start();
  assert.equal(autocheckpoint(sqlite), 0);
  const before = statSync(file).size;
  // 2 MiB is about 520 pages: under SQLite's 1,000-page automatic checkpoint even were it on.
  write(2);
  // The database file grows only when a checkpoint copies pages into it; this connection runs none.
  await waitFor(() => statSync(file).size >= before + 2 * 1024 * 1024, {
    what: 'the database file holds the committed pages',
  });
  assert.equal(autocheckpoint(sqlite), 0);
  assert.deepEqual(failures, []);
});

test('checkpointer: under commits that never pause, restartPages has the connection catch up so the WAL starts over', async (t) => {
  const { file, sqlite, write, start, failures } = await walDatabase(t);
  start({ restartPages: 64 });
  // Once the worker checkpoints (the database file grows), the WAL's size is its high-water mark.
  const before = statSync(file).size;
  write(1);
  await waitFor(() => statSync(file).size > before, { what: 'a checkpoint by the worker' });
  const wal = (): number => statSync(`${file}-wal`).size;
  const mark = wal();
  // Small commits a timer tick apart (about 10 MiB/s, the worker's report is handled between two):
  // one always runs while the worker's checkpoint syncs, so by itself the worker never leaves the
  // WAL fully copied, and SQLite would append to the WAL for as long as the commits go on.
  const insert = sqlite.prepare('INSERT INTO blobs (body) VALUES (?)');
  let written = 0;
  const grown = (): number => wal() - mark;
  while (written < 32 * 1024 * 1024 && !(written >= 8 * 1024 * 1024 && grown() * 4 <= written)) {
    insert.run(randomBytes(16 * 1024));
    written += 16 * 1024;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  assert.ok(grown() * 4 <= written, `the WAL grew ${grown()} bytes as ${written} were committed`);
  assert.equal(autocheckpoint(sqlite), 0);
  assert.deepEqual(failures, []);
});

test('checkpointer: a worker that cannot open the database gives the connection its automatic checkpoint back, and says why once', async (t) => {
  const { file, sqlite, start, failures } = await walDatabase(t);
  const worker = start({ file: `${file}.missing` });
  await waitFor(() => failures.length > 0, { what: 'the worker failure reported' });
  assert.equal(autocheckpoint(sqlite), SQLITE_AUTOCHECKPOINT_PAGES);
  // better-sqlite3's SqliteError reaches the main thread as its code only.
  assert.match(failures[0]!, /SQLITE_CANTOPEN/);
  await worker.stop();
  assert.equal(failures.length, 1, failures.join('; '));
});

test("checkpointer: the fallback is the caller's wal_autocheckpoint when the worker cannot load the driver", async (t) => {
  const { file, sqlite, start, failures } = await walDatabase(t);
  const worker = start({ driver: join(file, 'no-such-driver.js'), fallbackPages: 500 });
  await waitFor(() => failures.length > 0, { what: 'the worker failure reported' });
  assert.equal(autocheckpoint(sqlite), 500);
  await worker.stop();
  assert.equal(failures.length, 1, failures.join('; '));
});

test("checkpointer: stop() resolves once the worker connection is closed, so the caller's close is the last and removes the WAL; a stopped worker is no failure", async (t) => {
  const { file, sqlite, write, start, failures } = await walDatabase(t);
  const worker = start();
  const before = statSync(file).size;
  write(1);
  // The worker has its connection open once it has checkpointed something.
  await waitFor(() => statSync(file).size > before, { what: 'a checkpoint by the worker' });
  await worker.stop();
  await worker.stop();
  assert.equal(autocheckpoint(sqlite), 0, 'a stopped worker does not hand the checkpoint back');
  sqlite.close();
  assert.equal(existsSync(`${file}-wal`), false, 'the last connection to close removes the WAL');
  assert.deepEqual(failures, []);
});

/**
 * A real hub on a SQLite file in a temp directory, its log lines parsed, and the worker threads it
 * started (process 'worker' events while it started: the checkpoint worker is its only one).
 */
async function hubWithCheckpointer(t: { after: (fn: () => Promise<void> | void) => void }) {
  const dir = await tempDir('rsn-hub-ckpt-');
  const dbFile = join(dir.dir, 'hub.db');
  const log = logLines();
  const workers: Worker[] = [];
  const started = (w: Worker): void => void workers.push(w);
  process.on('worker', started);
  let hub: RunningHub;
  try {
    hub = await startHub({
      host: '127.0.0.1',
      port: 0,
      dbFile,
      allowPrivateNetworks: true,
      logger: createLogger('info', log.sink),
    });
  } finally {
    process.off('worker', started);
  }
  t.after(async () => {
    await hub.close();
    await dir.remove();
  });
  assert.equal(workers.length, 1, 'the hub starts one worker thread: the checkpointer');
  return { hub, dbFile, worker: workers[0]!, logged: log.of };
}

test('hub: a checkpoint worker that dies is logged as store.checkpoint_failed with the database file', async (t) => {
  const { hub, dbFile, worker, logged } = await hubWithCheckpointer(t);
  // The thread ends from outside, as a crash of the worker would end it.
  await worker.terminate();
  await waitFor(() => logged('store.checkpoint_failed').length > 0, {
    what: 'store.checkpoint_failed logged',
  });
  const [line, ...more] = logged('store.checkpoint_failed');
  assert.equal(line!.level, 40, 'a warning');
  assert.equal(line!.file, dbFile);
  assert.match(String(line!.error), /checkpoint worker exited/);
  assert.deepEqual(more, [], 'told once');
  // The hub goes on (its connection checkpoints by itself now) and still stops cleanly.
  const health = await fetch(new URL('/healthz', hub.url));
  assert.equal(health.status, 200);
});

test('hub: close() resolves only once the checkpoint worker has ended; a stopped worker is no failure', async (t) => {
  const { hub, dbFile, worker, logged } = await hubWithCheckpointer(t);
  let ended = false;
  worker.once('exit', () => (ended = true));
  await hub.close();
  assert.equal(ended, true, 'the worker thread has exited when close() resolves');
  // Its connection, the last one to close, checkpointed what was left and removed the WAL.
  assert.equal(existsSync(`${dbFile}-wal`), false);
  assert.deepEqual(logged('store.checkpoint_failed'), []);
  assert.equal(logged('hub.stopped').length, 1);
});
