// Batched durability for the baseline (M-7): files are written and verified one by one, then made
// durable together. A batch is flushed in this order, and only then does each write return, so its
// resource state is recorded after it (the caller records on return):
//   1. fsync every temporary file of the batch, all at once (through the libuv pool);
//   2. close and rename each synced file into place (a reader sees the old file or the new one);
//   3. fsync each directory that received a file (or a new directory) once per batch, so the
//      renames and new entries are durable too.
// A crash before step 3 ends can leave files renamed but not recorded; never a file recorded but not
// durable. The baseline is positioned only when it completes (RC-15: its `at` becomes the position),
// so after a crash it runs again, and every resource whose state was not recorded with the list's
// `at` is fetched again and overwritten: unrecorded files are re-fetched, not trusted.
import { fsync as fsyncCallback } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { MirrorError } from './errors.js';

/** The file-system calls whose outcome decides durability; injected to test a failing disk. */
export interface SyncFileSystem {
  /** fsync(2) of an open file or directory; `path` names it (for errors and tests). */
  fsync(fd: number, path: string): Promise<void>;
}

export const nodeSyncFileSystem: SyncFileSystem = {
  fsync: (fd) =>
    new Promise((resolve, reject) => fsyncCallback(fd, (err) => (err ? reject(err) : resolve()))),
};

/** A written and verified temporary file, not yet synced nor in place. */
export interface UnsyncedFile {
  readonly handle: FileHandle;
  readonly tmp: string;
  readonly uri: string;
  /** Moves the synced temporary file into place; returns where it went. */
  readonly place: () => Promise<string>;
}

interface Pending extends UnsyncedFile {
  resolve(path: string): void;
  reject(err: unknown): void;
}

export interface SyncGroupOptions {
  /**
   * The mirror directory: every directory from a file's up to it is synced with the batch, so a
   * directory made for the file (by whichever write made it) is durable before the file is recorded.
   */
  readonly root: string;
  readonly fs?: SyncFileSystem;
  /** Files per batch at most (default 128): bounds open descriptors and the wait of the first. */
  readonly maxFiles?: number;
  /** Oldest wait before a batch is flushed anyway (default 50 ms): a slow fetch holds no one long. */
  readonly maxDelayMs?: number;
}

const failed = (file: UnsyncedFile, step: string, err: unknown): MirrorError =>
  new MirrorError('RSN_WRITE_FAILED', `cannot ${step} ${file.uri}: ${(err as Error).message}`, {
    cause: err,
    details: { uri: file.uri },
  });

/**
 * Collects written files and flushes them as a batch when every write it tracks has handed its file
 * (nothing more is coming soon), when `maxFiles` wait, or after `maxDelayMs`.
 */
export class SyncGroup {
  private readonly fs: SyncFileSystem;
  private readonly root: string;
  private readonly maxFiles: number;
  private readonly maxDelayMs: number;
  private pending: Pending[] = [];
  private active = 0;
  private scheduled = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(options: SyncGroupOptions) {
    this.root = resolve(options.root);
    this.fs = options.fs ?? nodeSyncFileSystem;
    this.maxFiles = options.maxFiles ?? 128;
    this.maxDelayMs = options.maxDelayMs ?? 50;
  }

  /**
   * Runs one write that may hand a file to the group (`commit`, which resolves once the file is
   * durable and in place). While it runs, the group waits for it before flushing a partial batch.
   */
  async track<T>(
    work: (commit: (file: UnsyncedFile) => Promise<string>) => Promise<T>,
  ): Promise<T> {
    this.active++;
    let handed = false;
    const commit = (file: UnsyncedFile): Promise<string> => {
      handed = true;
      this.active--;
      return new Promise<string>((resolve, reject) => {
        this.pending.push({ ...file, resolve, reject });
        this.schedule();
      });
    };
    try {
      return await work(commit);
    } finally {
      if (!handed) {
        this.active--;
        this.schedule();
      }
    }
  }

  private schedule(): void {
    if (this.pending.length === 0) return;
    if (this.pending.length >= this.maxFiles || this.active === 0) {
      if (this.scheduled) return;
      this.scheduled = true;
      // setImmediate: writes finishing in the same turn join the batch.
      setImmediate(() => {
        this.scheduled = false;
        this.flushNow();
      });
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flushNow();
    }, this.maxDelayMs);
  }

  private flushNow(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    void this.flush(batch);
  }

  private async flush(batch: Pending[]): Promise<void> {
    // 1. fsync the temporary files in parallel; a file that fails is dropped (never renamed).
    const synced = await Promise.all(
      batch.map((f) =>
        this.fs.fsync(f.handle.fd, f.tmp).then(
          () => true,
          (err: unknown) => {
            f.reject(failed(f, 'fsync', err));
            return false;
          },
        ),
      ),
    );
    // 2. close, and rename the synced files into place.
    const placed = await Promise.all(
      batch.map(async (f, i) => {
        await f.handle.close().catch(() => undefined);
        if (!synced[i]) {
          await rm(f.tmp, { force: true }).catch(() => undefined);
          return undefined;
        }
        try {
          return await f.place();
        } catch (err) {
          await rm(f.tmp, { force: true }).catch(() => undefined);
          f.reject(err instanceof MirrorError ? err : failed(f, 'rename', err));
          return undefined;
        }
      }),
    );
    // 3. one fsync per directory touched; a file whose directory cannot be synced is not durable.
    const dirsOf = placed.map((path) => (path === undefined ? [] : this.directoriesOf(path)));
    const dirs = new Set(dirsOf.flat());
    const badDirs = new Map<string, unknown>();
    await Promise.all(
      [...dirs].map(async (dir) => {
        try {
          await this.syncDirectory(dir);
        } catch (err) {
          badDirs.set(dir, err);
        }
      }),
    );
    batch.forEach((f, i) => {
      const path = placed[i];
      if (path === undefined) return;
      const bad = dirsOf[i]!.find((d) => badDirs.has(d));
      if (bad !== undefined) f.reject(failed(f, `fsync directory of`, badDirs.get(bad)));
      else f.resolve(path);
    });
  }

  /** The file's directory and its ancestors up to the mirror directory. */
  private directoriesOf(path: string): string[] {
    const out: string[] = [];
    for (let d = dirname(resolve(path)); ; d = dirname(d)) {
      if (d !== this.root && !d.startsWith(this.root + sep)) break;
      out.push(d);
      if (d === this.root) break;
    }
    return out;
  }

  private async syncDirectory(dir: string): Promise<void> {
    const handle = await open(dir, 'r');
    try {
      await this.fs.fsync(handle.fd, dir);
    } finally {
      await handle.close();
    }
  }
}
