// One fetch of a resource into its mirror file: stream the body into a temporary file in the target
// directory while hashing it, check `length` and every given hash (RC-26, RC-27), then fsync and
// rename, so a reader sees the old file or the new one and never a partial or unverified one.
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { checkableAlgorithms, compareHashes, MultiHasher, type HashAlgorithm, type HashList } from '@rsnotify/shared';
import { MirrorError } from './errors.js';
import { TEMP_FILE_PREFIX } from './path.js';

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
}

export interface Written {
  readonly sha256: string;
  readonly length: number;
}

/** Directories known to exist, so the hot path does not mkdir for every file. */
export class DirectoryCache {
  private readonly known = new Set<string>();

  async ensure(dir: string, uri: string): Promise<void> {
    if (this.known.has(dir)) return;
    try {
      await mkdir(dir, { recursive: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' || code === 'ENOTDIR') {
        throw new MirrorError('RSN_PATH_CONFLICT', `a file of the mirror is in the way of directory ${dir}`, { cause: err, details: { uri, dir } });
      }
      throw new MirrorError('RSN_WRITE_FAILED', `cannot create ${dir}`, { cause: err, details: { uri, dir } });
    }
    this.known.add(dir);
  }

  forget(): void {
    this.known.clear();
  }
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
): Promise<Written> {
  const dir = dirname(path);
  await dirs.ensure(dir, expected.uri);
  const algorithms = new Set<HashAlgorithm>(checkableAlgorithms(expected.hash ?? []));
  algorithms.add('sha-256'); // kept in the resource state for status and audit
  const hasher = new MultiHasher(algorithms);
  const tmp = join(dir, `${TEMP_PREFIX}${(tempCounter++).toString(36)}`);
  let handle: FileHandle | undefined;
  let renamed = false;
  try {
    handle = await open(tmp, 'wx', 0o644);
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
    if (pendingBytes > 0) await handle.writev(pending);
    const digests = hasher.digests(); // digest() may be read once only
    verify(expected, hasher.length, digests);
    await handle.sync();
    await handle.close();
    handle = undefined;
    try {
      await rename(tmp, path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EISDIR' || code === 'ENOTEMPTY' || code === 'EEXIST') {
        throw new MirrorError('RSN_PATH_CONFLICT', `a directory of the mirror is in the way of file ${path}`, { cause: err, details: { uri: expected.uri, path } });
      }
      throw err;
    }
    renamed = true;
    return { sha256: digests.get('sha-256')!, length: hasher.length };
  } catch (err) {
    if (err instanceof MirrorError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && code.startsWith('E') && !code.startsWith('ECONN')) {
      throw new MirrorError('RSN_WRITE_FAILED', `cannot write ${path}: ${(err as Error).message}`, { cause: err, details: { uri: expected.uri, path } });
    }
    throw err; // a network error while reading the body: the caller's retry policy decides
  } finally {
    if (handle) await handle.close().catch(() => undefined);
    if (!renamed) await rm(tmp, { force: true }).catch(() => undefined);
  }
}

function verify(expected: Expected, length: number, digests: ReadonlyMap<HashAlgorithm, string>): void {
  if (expected.length !== undefined && length !== expected.length) {
    throw new MirrorError('RSN_LENGTH_MISMATCH', `${expected.uri}: expected ${expected.length} bytes, got ${length}`, {
      details: { uri: expected.uri, expected: expected.length, actual: length },
    });
  }
  const mismatches = compareHashes(expected.hash ?? [], digests);
  if (mismatches.length > 0) {
    const m = mismatches[0]!;
    throw new MirrorError('RSN_HASH_MISMATCH', `${expected.uri}: ${m.algorithm} expected ${m.expected}, got ${m.actual}`, {
      details: { uri: expected.uri, mismatches },
    });
  }
}

/** Deletes a mirror file; a file that is already gone is fine (idempotent delete). */
export async function removeFile(path: string, uri: string): Promise<void> {
  try {
    // unlink(2) alone: rm() stats first, which doubled the syscalls of every delete.
    await unlink(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new MirrorError('RSN_WRITE_FAILED', `cannot delete ${path}: ${(err as Error).message}`, { cause: err, details: { uri, path } });
  }
}
