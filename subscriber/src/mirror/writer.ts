// One fetch of a resource into its mirror file: stream the body into a temporary file in the target
// directory while hashing it (one pass: the hashes are updated as the chunks arrive), check `length`
// and every given hash (RC-26, RC-27), then fsync and rename, so a reader sees the old file or the
// new one and never a partial or unverified one. The fsync and rename are done here for one file,
// or by a SyncGroup for a batch of them (the baseline; see sync-group.ts).
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, rename, rm, unlink, type FileHandle } from 'node:fs/promises';
import { futimesSync, lstatSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import {
  checkableAlgorithms,
  compareHashes,
  MultiHasher,
  type HashAlgorithm,
  type HashList,
} from '@rsnotify/shared';
import { errnoOf, MirrorError } from './errors.js';
import { SELF_FILE_NAME, TEMP_FILE_PREFIX } from './path.js';
import type { UnsyncedFile } from './sync-group.js';

/**
 * Temporary names: a random prefix drawn once per process plus a counter (the open uses 'wx', so a
 * clash could only fail, never overwrite); drawing random bytes for every file showed in profiles.
 */
const TEMP_PREFIX = `${TEMP_FILE_PREFIX}${randomBytes(6).toString('hex')}-`;
let tempCounter = 0;

/** Bytes gathered before a write(2): small resources cost one write. */
const WRITE_CHUNK = 256 * 1024;

export interface Expected {
  readonly uri: string;
  readonly hash?: HashList;
  readonly length?: number;
  /**
   * The file's modification time, in ms since the epoch: the entry's lastmod (else its change time),
   * as `rsync -t` / `wget -N` keep it, so tools comparing lastmod with mtimes see a mirror.
   */
  readonly mtimeMs?: number;
}

export interface Written {
  readonly sha256: string;
  readonly length: number;
  /** Where the file went: the mapped path, or `<path>/%%self` when that path is a directory. */
  readonly path: string;
}

/**
 * Turns the file at `path` into a directory that holds it as `%%self` (a URI and its members:
 * `/m/dir` and `/m/dir/child.txt`). Renames only, so the bytes are never copied or half-written.
 */
async function fileToDirectory(path: string): Promise<void> {
  const aside = join(dirname(path), `${TEMP_FILE_PREFIX}${randomBytes(8).toString('hex')}`);
  await rename(path, aside);
  try {
    await mkdir(path);
  } catch (err) {
    if (errnoOf(err) !== 'EEXIST') {
      await rename(aside, path).catch(() => undefined);
      throw err;
    }
  }
  await rename(aside, join(path, SELF_FILE_NAME));
}

/** The first ancestor of `dir` (below `root`) that exists as something other than a directory. */
async function blockingFile(root: string, dir: string): Promise<string | undefined> {
  const rel = resolve(dir).slice(resolve(root).length + 1);
  let at = resolve(root);
  for (const part of rel.split(sep)) {
    if (part === '') continue;
    at = join(at, part);
    try {
      const st = await lstat(at);
      if (!st.isDirectory()) return at;
    } catch (err) {
      if (errnoOf(err) === 'ENOENT') return undefined;
      throw err;
    }
  }
  return undefined;
}

/** Where the file mapped to `path` is now: `path` itself, or `path/%%self` when it is a directory. */
export async function locateFile(path: string): Promise<string> {
  try {
    return (await lstat(path)).isDirectory() ? join(path, SELF_FILE_NAME) : path;
  } catch {
    return path;
  }
}

/** Directories known to exist, so the hot path does not mkdir for every file. */
export class DirectoryCache {
  private readonly known = new Set<string>();

  /** `root`: the mirror directory; a file in the way below it becomes a directory holding it. */
  constructor(private readonly root?: string) {}

  async ensure(dir: string, uri: string): Promise<void> {
    if (this.known.has(dir)) return;
    for (let attempt = 0; ; attempt++) {
      try {
        await mkdir(dir, { recursive: true });
        break;
      } catch (err) {
        const code = errnoOf(err);
        if ((code === 'EEXIST' || code === 'ENOTDIR') && this.root !== undefined && attempt < 3) {
          // A mirrored file sits where a directory must go: it moves inside as `%%self`.
          const file = await blockingFile(this.root, dir).catch(() => undefined);
          if (file !== undefined) await fileToDirectory(file).catch(() => undefined);
          continue;
        }
        if (code === 'EEXIST' || code === 'ENOTDIR') {
          throw new MirrorError(
            'RSN_PATH_CONFLICT',
            `a file of the mirror is in the way of directory ${dir}`,
            { cause: err, details: { uri, dir } },
          );
        }
        throw new MirrorError('RSN_WRITE_FAILED', `cannot create ${dir}`, {
          cause: err,
          details: { uri, dir },
        });
      }
    }
    this.known.add(dir);
  }

  /** Whether `dir` is known to exist (created or seen by `ensure`). */
  has(dir: string): boolean {
    return this.known.has(dir);
  }

  forget(): void {
    this.known.clear();
  }
}

/** A temporary file beside the target: its name at once, its handle once open(2) returns. */
export interface Temporary {
  readonly tmp: string;
  readonly handle: Promise<FileHandle>;
}

/** Starts creating the temporary file for `path` (its directory must exist). */
export function openTemporary(path: string): Temporary {
  const tmp = join(dirname(path), `${TEMP_PREFIX}${(tempCounter++).toString(36)}`);
  const handle = open(tmp, 'wx', 0o644);
  // Awaited later (or discarded): a failure is seen there, not reported as unhandled meanwhile.
  handle.catch(() => undefined);
  return { tmp, handle };
}

/** Closes and removes a temporary file that will not be written (the GET failed). */
export async function discardTemporary(temporary: Temporary): Promise<void> {
  const handle = await temporary.handle.catch(() => undefined);
  await handle?.close().catch(() => undefined);
  if (handle) await rm(temporary.tmp, { force: true }).catch(() => undefined);
}

/** Renames a written temporary file to `path`, or into it as `%%self` when `path` is a directory. */
async function placeFile(tmp: string, path: string, uri: string): Promise<string> {
  try {
    await rename(tmp, path);
    return path;
  } catch (err) {
    const code = errnoOf(err);
    if (code !== 'EISDIR' && code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
    // The path is a directory (members of this URI are mirrored too): the file lives inside it.
    const inside = join(path, SELF_FILE_NAME);
    try {
      await rename(tmp, inside);
    } catch (inner) {
      throw new MirrorError(
        'RSN_PATH_CONFLICT',
        `a directory of the mirror is in the way of file ${path}`,
        { cause: inner, details: { uri, path } },
      );
    }
    return inside;
  }
}

export interface WriteOptions {
  /** Called once the whole body was read (the connection is free before the disk work ends). */
  readonly bodyRead?: () => void;
  /**
   * Hands the written, verified, unsynced temporary file to a SyncGroup, which syncs and renames it
   * with its batch and resolves with where it went. Without it the file is synced and renamed alone.
   */
  readonly commit?: (file: UnsyncedFile) => Promise<string>;
  /**
   * The temporary file, already being created (openTemporary) while the body was still on its way;
   * writeVerified owns it from here on, failures included. Without it the file is created here.
   */
  readonly temporary?: Temporary;
}

/**
 * Writes `body` to `path` atomically after verifying it. On any failure the temporary file is
 * removed and the previous file (if any) is left untouched.
 */
export async function writeVerified(
  path: string,
  body: AsyncIterable<Uint8Array>,
  expected: Expected,
  dirs: DirectoryCache,
  options: WriteOptions = {},
): Promise<Written> {
  if (!options.temporary) await dirs.ensure(dirname(path), expected.uri);
  const { tmp, handle: opening } = options.temporary ?? openTemporary(path);
  const algorithms = new Set<HashAlgorithm>(checkableAlgorithms(expected.hash ?? []));
  algorithms.add('sha-256'); // kept in the resource state for status and audit
  const hasher = new MultiHasher(algorithms);
  let handle: FileHandle | undefined;
  let handedOver = false;
  let renamed = false;
  try {
    handle = await opening;
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    for await (const chunk of body) {
      hasher.update(chunk);
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes >= WRITE_CHUNK) {
        await handle.writev(pending);
        pending = [];
        pendingBytes = 0;
      }
    }
    options.bodyRead?.();
    if (pendingBytes > 0) await handle.writev(pending);
    const digests = hasher.digests(); // digest() may be read once only
    verify(expected, hasher.length, digests);
    if (expected.mtimeMs !== undefined && Number.isFinite(expected.mtimeMs)) {
      const t = expected.mtimeMs / 1000;
      // futimes(2) changes the inode in memory only (the fsync below makes it durable): a few µs on
      // the main thread, where a round trip through the thread pool cost ~0.1 ms per file.
      futimesSync(handle.fd, t, t);
    }
    let finalPath: string;
    if (options.commit) {
      // The group owns the handle and the temporary file from here on, failures included.
      const file: UnsyncedFile = {
        handle,
        tmp,
        uri: expected.uri,
        place: () => placeFile(tmp, path, expected.uri),
      };
      handedOver = true;
      handle = undefined;
      finalPath = await options.commit(file);
    } else {
      await handle.sync();
      // Renamed before the close (the finally closes it): the file is in place one hop sooner.
      finalPath = await placeFile(tmp, path, expected.uri);
    }
    renamed = true;
    return { sha256: digests.get('sha-256')!, length: hasher.length, path: finalPath };
  } catch (err) {
    if (err instanceof MirrorError) throw err;
    const code = errnoOf(err);
    if (typeof code === 'string' && code.startsWith('E') && !code.startsWith('ECONN')) {
      throw new MirrorError('RSN_WRITE_FAILED', `cannot write ${path}: ${(err as Error).message}`, {
        cause: err,
        details: { uri: expected.uri, path },
      });
    }
    throw err; // a network error while reading the body: the caller's retry policy decides
  } finally {
    if (handle) await handle.close().catch(() => undefined);
    if (!renamed && !handedOver) await rm(tmp, { force: true }).catch(() => undefined);
  }
}

function verify(
  expected: Expected,
  length: number,
  digests: ReadonlyMap<HashAlgorithm, string>,
): void {
  if (expected.length !== undefined && length !== expected.length) {
    throw new MirrorError(
      'RSN_LENGTH_MISMATCH',
      `${expected.uri}: expected ${expected.length} bytes, got ${length}`,
      {
        details: { uri: expected.uri, expected: expected.length, actual: length },
      },
    );
  }
  const mismatches = compareHashes(expected.hash ?? [], digests);
  if (mismatches.length > 0) {
    const m = mismatches[0]!;
    throw new MirrorError(
      'RSN_HASH_MISMATCH',
      `${expected.uri}: ${m.algorithm} expected ${m.expected}, got ${m.actual}`,
      {
        details: { uri: expected.uri, mismatches },
      },
    );
  }
}

/**
 * Nothing at `path` (ENOENT, without building an error; ENOTDIR: a parent is a file, as when a
 * collection is mirrored as a file and none of its members ever was); any other answer lets
 * unlink(2) decide.
 */
function surelyAbsent(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) === undefined;
  } catch (err) {
    return errnoOf(err) === 'ENOTDIR';
  }
}

/**
 * Deletes a mirror file; a file that is already gone is fine (idempotent delete). `recorded`: the
 * resource state says the mirror wrote the file, so it is unlinked without looking first.
 */
export async function removeFile(path: string, uri: string, recorded = false): Promise<void> {
  // A delete of a file the mirror does not have is common (a resource created and deleted before it
  // was fetched, a delete replayed by a catch-up): a failed unlink through fs/promises cost ~30 µs
  // of main-thread CPU (a request object, an ENOENT error with two stack captures), a non-throwing
  // lstat ~2 µs (synchronous, like the store's reads on this path). Without a state row the file is
  // still looked for: a crash between the rename and the state write leaves a file without a row.
  if (!recorded && surelyAbsent(path)) return;
  try {
    // unlink(2), not rm(): rm() stats first, which doubled the syscalls of every recorded delete.
    await unlink(path);
  } catch (err) {
    const code = errnoOf(err);
    // Gone already, or a parent is a file (the member of a collection mirrored as a file).
    if (code === 'ENOENT' || code === 'ENOTDIR') return;
    if (code === 'EISDIR' || code === 'ERR_FS_EISDIR') {
      // A file that is also a directory lives inside it (`%%self`); the members stay.
      await rm(join(path, SELF_FILE_NAME), { force: true }).catch((inner: unknown) => {
        throw new MirrorError(
          'RSN_WRITE_FAILED',
          `cannot delete ${path}: ${(inner as Error).message}`,
          { cause: inner, details: { uri, path } },
        );
      });
      return;
    }
    throw new MirrorError('RSN_WRITE_FAILED', `cannot delete ${path}: ${(err as Error).message}`, {
      cause: err,
      details: { uri, path },
    });
  }
}
