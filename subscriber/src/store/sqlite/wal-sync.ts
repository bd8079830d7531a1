// Power-loss durability of the WAL, off the event loop. better-sqlite3 is synchronous: a commit with
// synchronous=FULL holds the main thread for the WAL's fsync, and nothing else (intake, applying)
// runs meanwhile. Instead every commit runs with synchronous=NORMAL (in WAL mode its frames are
// written to the WAL before the commit returns, so a killed process loses nothing) and a durable
// write (an inbox row, WS-11 / promise 2) is answered only after an fsync of the WAL file that
// started after its commit, run on libuv's thread pool. Syncs are group-committed too: commits made
// while one fsync is in flight share the next one.
//
// Why this is as strong as FULL: the WAL is append-only between checkpoints, a checkpoint syncs the
// WAL before copying it and the database after (SQLite does both in NORMAL mode), and WAL recovery
// keeps the longest valid prefix of frames, so a commit whose frames were fsync'd survives, and so
// does every commit before it. The WAL is one file for the connection's life (SQLite removes it only
// when the last connection closes); its directory entry is made durable once, by the first sync, as
// SQLite itself does for a newly created WAL.
import { close, fdatasync, fsync, open } from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';

const openAsync = promisify(open);
const fsyncAsync = promisify(fsync);
const fdatasyncAsync = promisify(fdatasync);
const closeAsync = promisify(close);

export class WalSync {
  private fd?: Promise<number>;
  private dirSynced = false;
  /** Commits made so far (the sync in flight covers those made before it started). */
  private made = 0;
  private inFlight?: { readonly covers: number; readonly done: Promise<void> };
  private queued?: Promise<void>;

  constructor(private readonly walFile: string) {}

  /** A transaction committed (its frames are in the WAL). */
  committed(): void {
    this.made++;
  }

  /** The number of the last commit, for `sync`. */
  get commits(): number {
    return this.made;
  }

  /** Runs `fn` now when no sync is in flight, else once it ends (the next batch is cut there). */
  whenIdle(fn: () => void): void {
    const current = this.inFlight;
    if (!current) fn();
    else current.done.then(fn, fn);
  }

  /**
   * Resolves once commit number `commit` (and every one before it) is on disk: the sync in flight
   * if it started after that commit, else the next one (started when the one in flight ends).
   */
  sync(commit: number): Promise<void> {
    const current = this.inFlight;
    if (!current) return this.start();
    if (current.covers >= commit) return current.done;
    const next = (): Promise<void> => {
      this.queued = undefined;
      return this.inFlight && this.inFlight.covers >= commit ? this.inFlight.done : this.start();
    };
    this.queued ??= current.done.then(next, next);
    return this.queued;
  }

  private start(): Promise<void> {
    const run = {
      covers: this.made,
      done: this.fsyncOnce().finally(() => {
        if (this.inFlight === run) this.inFlight = undefined;
      }),
    };
    this.inFlight = run;
    return run.done;
  }

  private async fsyncOnce(): Promise<void> {
    this.fd ??= openAsync(this.walFile, 'r');
    const fd = await this.fd.catch((err: unknown) => {
      this.fd = undefined; // a later sync tries again
      throw err;
    });
    await fdatasyncAsync(fd);
    if (!this.dirSynced) {
      const dir = await openAsync(dirname(this.walFile), 'r');
      try {
        await fsyncAsync(dir);
      } finally {
        await closeAsync(dir);
      }
      this.dirSynced = true;
    }
  }

  /** Waits for the syncs in flight, then releases the file. */
  async close(): Promise<void> {
    await Promise.allSettled([this.inFlight?.done, this.queued]);
    const fd = await this.fd?.catch(() => undefined);
    this.fd = undefined;
    if (fd !== undefined) await closeAsync(fd);
  }
}
