// WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the commit that
// crosses 1,000 WAL pages: it copies those pages into the database file and fsyncs both, on the
// thread that committed. On the hub that thread is the event loop, and a checkpoint after a large
// publish held it for 30-170 ms on a loaded machine (16 MiB: several hundred). Here a worker thread
// with its own connection runs PASSIVE checkpoints instead, which never block the writer (WAL mode);
// a commit is as durable as before (synchronous=NORMAL keeps a WAL commit across kill -9 whether or
// not it has been checkpointed yet). If the worker cannot start or dies, the connection gets its
// automatic checkpoint back, so the WAL cannot grow without bound.
import type Database from 'better-sqlite3';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the worker checkpoints: a passive checkpoint of an already copied WAL costs nothing. */
const CHECKPOINT_EVERY_MS = 200;
/** SQLite's default wal_autocheckpoint, restored when the worker is gone. */
const AUTOCHECKPOINT_PAGES = 1000;

// Plain CommonJS so that it runs the same from src/ (tsx) and dist/.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
const timer = setInterval(() => db.pragma('wal_checkpoint(PASSIVE)'), workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  stop(): void;
}

export function startCheckpointer(sqlite: Database.Database, file: string): Checkpointer {
  const restore = (): void => {
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  };
  let stopped = false;
  let worker: Worker;
  try {
    worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        file,
        everyMs: CHECKPOINT_EVERY_MS,
      },
    });
  } catch {
    return { stop: () => undefined };
  }
  sqlite.pragma('wal_autocheckpoint = 0');
  // An error in the worker (it could not open the file, a checkpoint failed) ends it: from then on
  // the connection checkpoints by itself as SQLite does by default.
  worker.on('error', restore);
  worker.on('exit', () => {
    if (!stopped) restore();
  });
  // The worker never keeps the process alive; close() stops it.
  worker.unref();
  return {
    stop: () => {
      if (stopped) return;
      stopped = true;
      worker.postMessage('stop');
    },
  };
}
