// Where a daemon's SQLite database lives: its directory is created 0700 (only the parts that are
// missing), the file itself 0600 before SQLite opens it; SQLite gives its -wal and -shm files the
// database file's mode. Secrets (hub.secret, token hashes) are in there.
//
// Directories are created one level at a time, never with mkdir's recursive mode: on Node 20 that
// spins forever under /proc (mkdir answers ENOENT there, and the recursion retries), so a path such
// as /proc/nope/hub.db must fail with its errno instead of hanging.
import { closeSync, constants, lstatSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export const DATABASE_FILE_MODE = 0o600;
export const DATABASE_DIR_MODE = 0o700;

/** An error with the errno code (ENOTDIR, EACCES, EISDIR, ENOENT ...) of what went wrong, and where. */
export class DatabasePathError extends Error {
  readonly code: string;
  readonly path: string;
  constructor(code: string, path: string, message: string) {
    super(`${code}: ${message} (${path})`);
    this.name = 'DatabasePathError';
    this.code = code;
    this.path = path;
  }
}

function errnoOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'EIO';
}

function fail(err: unknown, path: string, what: string): never {
  throw new DatabasePathError(
    errnoOf(err),
    path,
    `${what}: ${(err as Error).message ?? String(err)}`,
  );
}

/** Creates the missing directories above `file` (0700 each) after checking the nearest existing one. */
export function ensureDatabaseDirectory(file: string): void {
  const missing: string[] = [];
  let dir = dirname(resolve(file));
  for (;;) {
    let isDir: boolean;
    try {
      isDir = statSync(dir).isDirectory();
    } catch (err) {
      const code = errnoOf(err);
      if (code !== 'ENOENT') fail(err, dir, 'cannot inspect the database directory');
      const parent = dirname(dir);
      if (parent === dir) fail(err, dir, 'no existing directory above the database file');
      missing.push(dir);
      dir = parent;
      continue;
    }
    if (!isDir)
      throw new DatabasePathError(
        'ENOTDIR',
        dir,
        'a path component above the database file is not a directory',
      );
    break;
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d, { mode: DATABASE_DIR_MODE });
    } catch (err) {
      if (errnoOf(err) !== 'EEXIST') fail(err, d, 'cannot create the database directory');
    }
  }
}

/**
 * Makes sure `file` can be opened as a database: its directory exists, and when the file does not
 * exist yet it is created empty with mode 0600 (SQLite would create it 0644 under the usual umask).
 * Returns whether the file was created. A directory in its place is EISDIR.
 */
export function prepareDatabaseFile(file: string): { created: boolean } {
  if (file === ':memory:' || file === '') return { created: false };
  ensureDatabaseDirectory(file);
  try {
    if (lstatSync(file).isDirectory())
      throw new DatabasePathError('EISDIR', file, 'the database path is a directory');
    return { created: false };
  } catch (err) {
    if (err instanceof DatabasePathError) throw err;
    if (errnoOf(err) !== 'ENOENT') fail(err, file, 'cannot inspect the database file');
  }
  try {
    closeSync(
      openSync(file, constants.O_CREAT | constants.O_EXCL | constants.O_RDWR, DATABASE_FILE_MODE),
    );
    return { created: true };
  } catch (err) {
    if (errnoOf(err) === 'EEXIST') return { created: false };
    return fail(err, file, 'cannot create the database file');
  }
}

/** The errno-bearing reason for a "cannot open database" message. */
export function describeOpenFailure(err: unknown): string {
  const code = errnoOf(err);
  const message = (err as Error)?.message ?? String(err);
  return message.startsWith(code) ? message : `${code}: ${message}`;
}
