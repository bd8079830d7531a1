// WAL checkpoints off the event loop, for the SQLite store of either daemon. SQLite's automatic
// checkpoint runs inside the commit that crosses 1,000 WAL pages: it copies those pages into the
// database file and fsyncs both, on the thread that committed, which in a daemon is the event loop
// (on the hub a checkpoint after a large publish held it for 30-170 ms on a loaded machine; 16 MiB:
// several hundred). Here a worker thread with its own connection runs PASSIVE checkpoints instead,
// which never block the writer (WAL mode). A commit is as durable as before: the worker's connection
// keeps SQLite's default synchronous (not OFF), so its checkpoint syncs the WAL before copying and
// the database file after, exactly as the automatic one does, and the writer reuses the WAL from its
// start only once a checkpoint has copied (and synced) every frame of it. If the worker cannot start
// or dies, the connection gets its automatic checkpoint back, so the WAL cannot grow without bound.
//
// SQLite writes the WAL from its start again only when a commit finds every frame of it copied. A
// checkpoint on another connection syncs twice, and a writer that commits more often than that (the
// subscriber under sustained intake commits once per WAL sync) always adds frames meanwhile: the WAL
// would grow for as long as the load lasts. With `restartPages`, a worker checkpoint that leaves the
// WAL that long makes the connection run one PASSIVE checkpoint itself, between two of its commits:
// it copies only what was committed since the worker's (on the event loop, but a small part of what
// an automatic checkpoint copies), and the next commit starts the WAL over.
//
// The driver (better-sqlite3) belongs to the daemon, not to this package: the caller passes where it
// resolves, and the connection only as the members used here.
import { Worker } from 'node:worker_threads';

/** The main connection, as far as the checkpointer touches it (a better-sqlite3 Database). */
export interface CheckpointedConnection {
  readonly open: boolean;
  readonly inTransaction: boolean;
  pragma(source: string): unknown;
}

export interface CheckpointerOptions {
  /** The database file (it must exist: the worker opens it again). */
  readonly file: string;
  /** The resolved path of the SQLite driver module (`require.resolve('better-sqlite3')`). */
  readonly driver: string;
  /** How often the worker checkpoints; a passive checkpoint of an already copied WAL costs nothing. */
  readonly intervalMs?: number;
  /**
   * WAL pages a worker checkpoint may leave before the connection checkpoints once itself, so that
   * the WAL restarts under sustained writes; default never.
   */
  readonly restartPages?: number;
  /** The connection's wal_autocheckpoint (WAL pages) once the worker is gone: SQLite's default. */
  readonly fallbackPages?: number;
  /** The worker failed (could not start, a checkpoint threw, it exited): told once, with why. */
  readonly onFailed?: (reason: string) => void;
}

export interface Checkpointer {
  /** Stops the worker; resolves once its connection is closed (before the caller closes its own). */
  stop(): Promise<void>;
}

export const CHECKPOINT_INTERVAL_MS = 200;
export const SQLITE_AUTOCHECKPOINT_PAGES = 1000;

// Plain CommonJS so that it runs the same from src/ (tsx) and dist/.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
const timer = setInterval(() => {
  const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)');
  if (log >= workerData.restartPages) parentPort.postMessage(log);
}, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export function startCheckpointer(
  sqlite: CheckpointedConnection,
  options: CheckpointerOptions,
): Checkpointer {
  const fallback = options.fallbackPages ?? SQLITE_AUTOCHECKPOINT_PAGES;
  let stopped = false;
  let failed = false;
  const fail = (reason: string): void => {
    if (stopped || failed) return;
    failed = true;
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${fallback}`);
    options.onFailed?.(reason);
  };
  let worker: Worker;
  try {
    worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        driver: options.driver,
        file: options.file,
        everyMs: options.intervalMs ?? CHECKPOINT_INTERVAL_MS,
        restartPages: options.restartPages ?? Infinity,
      },
    });
  } catch (err) {
    // Nothing was turned off yet: the connection keeps checkpointing by itself.
    failed = true;
    options.onFailed?.((err as Error).message);
    return { stop: () => Promise.resolve() };
  }
  sqlite.pragma('wal_autocheckpoint = 0');
  const exited = new Promise<void>((resolve) => {
    worker.on('exit', (code) => {
      fail(`checkpoint worker exited (code ${code})`);
      resolve();
    });
  });
  // An error in the worker (it could not open the file, a checkpoint failed) ends it: from then on
  // the connection checkpoints by itself as SQLite does by default.
  worker.on('error', (err: unknown) => fail(describeWorkerError(err)));
  // The WAL is `restartPages` long after the worker's checkpoint: see the top of this file. A
  // message is handled between two commits (better-sqlite3 is synchronous), never inside one.
  worker.on('message', () => {
    if (stopped || failed || !sqlite.open || sqlite.inTransaction) return;
    try {
      sqlite.pragma('wal_checkpoint(PASSIVE)');
    } catch (err) {
      fail(describeWorkerError(err));
    }
  });
  // The worker never keeps the process alive while it runs; stop() holds it until the worker ends.
  worker.unref();
  return {
    stop: () => {
      if (!stopped) {
        stopped = true;
        worker.ref();
        worker.postMessage('stop');
      }
      return exited;
    },
  };
}

/** A driver's error class does not cross the thread: what arrives is an Error or its own fields. */
function describeWorkerError(err: unknown): string {
  if (err instanceof Error) return err.message;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : String(err);
}
