// The start-up sweep of the writer's temporary files (writer.ts writes each file to a `%%tmp-`
// name beside its target, then renames it): a process killed between the two leaves the temporary
// behind, and nothing else ever removes it. The decision is path.ts's isLeftoverTemp; this is the
// walk. It runs before the runner applies anything (source-runner.ts), one directory at a time,
// reading each in batches (opendir), so a mirror of 100,000+ files never holds the event loop long.
// Symbolic links are neither followed nor removed, and nothing outside the mirror directory is read.
import { lstat, opendir, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isLeftoverTemp, isTempFileName } from './path.js';

/** Linux's PATH_MAX: the writer cannot have made anything at a longer path, so the walk stops. */
const PATH_MAX = 4096;
/** Directory entries read per readdir(3) batch. */
const BATCH = 256;

export interface TempSweep {
  /** Leftover temporaries removed. */
  readonly removed: number;
  /** Leftover temporaries that could not be removed (permissions, a read-only mount). */
  readonly failed: number;
}

const errno = (err: unknown): string | undefined => (err as NodeJS.ErrnoException).code;

/** Removes the leftover temporaries under `mirrorDir` (see isLeftoverTemp); a missing mirror has none. */
export async function sweepTempFiles(mirrorDir: string, startedAtMs: number): Promise<TempSweep> {
  let removed = 0;
  let failed = 0;
  const pending = [resolve(mirrorDir)];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    try {
      for await (const entry of await opendir(dir, { bufferSize: BATCH })) {
        const path = join(dir, entry.name);
        // The entry's type as readdir(3) gave it: a link to a directory is not a directory.
        if (entry.isDirectory()) {
          if (Buffer.byteLength(path) < PATH_MAX) pending.push(path);
          continue;
        }
        if (!entry.isFile() || !isTempFileName(entry.name)) continue;
        try {
          const st = await lstat(path);
          const found = { name: entry.name, isFile: st.isFile(), changedAtMs: st.ctimeMs };
          if (!isLeftoverTemp(found, startedAtMs)) continue;
          await unlink(path);
          removed++;
        } catch (err) {
          if (errno(err) !== 'ENOENT') failed++;
        }
      }
    } catch {
      // A directory that went away or cannot be read holds nothing this sweep can remove.
    }
  }
  return { removed, failed };
}
