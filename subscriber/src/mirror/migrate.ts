// Upgrading an existing mirror to the current URI -> path mapping (path.ts). The resources table
// records where each URI's file was written; a row whose recorded path is not the current mapping
// (layout 1 named reserved files `%2F...`) is moved by rename, never re-fetched. A file that cannot
// be found or moved is reported: the caller re-baselines, so nothing is silently lost.
import { rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { uriToMirrorPath } from './path.js';
import { DirectoryCache, locateFile } from './writer.js';

export interface RecordedPath {
  readonly uri: string;
  readonly path: string;
}

export interface LayoutMigration {
  /** Files moved to their current name. */
  readonly moved: number;
  /** URIs whose file could not be moved (missing, or the move failed). */
  readonly failed: { readonly uri: string; readonly error: string }[];
}

export async function migrateMirrorLayout(
  mirrorDir: string,
  recorded: readonly RecordedPath[],
  record: (uri: string, path: string) => Promise<void>,
): Promise<LayoutMigration> {
  const dirs = new DirectoryCache(mirrorDir);
  let moved = 0;
  const failed: { uri: string; error: string }[] = [];
  for (const r of recorded) {
    let target: string;
    try {
      target = uriToMirrorPath(mirrorDir, r.uri);
    } catch {
      continue; // refused before too: it has no file
    }
    if (target === r.path) continue;
    try {
      await dirs.ensure(dirname(target), r.uri);
      await rename(await locateFile(r.path), await locateFile(target));
      await record(r.uri, target);
      moved++;
    } catch (err) {
      failed.push({ uri: r.uri, error: (err as Error).message });
    }
  }
  return { moved, failed };
}
