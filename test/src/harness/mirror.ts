// The byte-for-byte comparison of a mirror directory with a Source's exact state (the simulator's
// snapshot()), shared by the e2e tests, the convergence suite and the demo.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isTempFileName, locateFile, uriToMirrorPath } from '@rsnotify/subscriber';

export interface MirrorDiff {
  /** URIs the Source has and the mirror lacks. */
  readonly missing: string[];
  /** URIs whose mirrored bytes differ from the Source's. */
  readonly different: string[];
  /** Mirror files no Source URI maps to (temp files of an atomic write in progress excluded). */
  readonly extra: string[];
  /** How many Source resources were compared. */
  readonly checked: number;
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await listFiles(p)));
    else if (!isTempFileName(e.name)) out.push(p);
  }
  return out;
}

/** Compares every snapshot entry byte for byte and looks for files that should not be there. */
export async function diffMirror(
  mirrorDir: string,
  snapshot: ReadonlyMap<string, { bytes: Buffer }>,
): Promise<MirrorDiff> {
  const missing: string[] = [];
  const different: string[] = [];
  const expected = new Set<string>();
  for (const [uri, entry] of snapshot) {
    const path = await locateFile(uriToMirrorPath(mirrorDir, uri));
    expected.add(path);
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch {
      missing.push(uri);
      continue;
    }
    if (!bytes.equals(entry.bytes)) different.push(uri);
  }
  const extra = (await listFiles(mirrorDir)).filter((p) => !expected.has(p));
  return { missing, different, extra, checked: snapshot.size };
}

export function isIdentical(d: MirrorDiff): boolean {
  return d.missing.length === 0 && d.different.length === 0 && d.extra.length === 0;
}

export async function mirrorEquals(
  mirrorDir: string,
  snapshot: ReadonlyMap<string, { bytes: Buffer }>,
): Promise<boolean> {
  return isIdentical(await diffMirror(mirrorDir, snapshot));
}
