// The fixture corpus (test/fixtures/resourcesync) and the shape of one expectation row. The rows
// themselves are split by where the fixtures come from (one file per collection); see
// documents-fixtures.test.ts for how they are checked.
import { readFile, readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURES = fileURLToPath(
  new URL('../../../test/fixtures/resourcesync/', import.meta.url),
);

export async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of await readdir(dir)) {
    const p = join(dir, name);
    if ((await stat(p)).isDirectory()) out.push(...(await listFiles(p)));
    else out.push(relative(FIXTURES, p));
  }
  return out.sort();
}

export const read = (file: string): Promise<string> => readFile(join(FIXTURES, file), 'utf8');

export interface Expectation {
  kind: string;
  entries: number;
  /** Document-level rs:md times, lexical. */
  md?: Record<string, string>;
  /** Document-level rs:ln rels, in order. */
  rels?: string[];
  /** The first entry: loc as written, and rs:md / lastmod values as written. */
  first?: Record<string, string>;
  lastLoc?: string;
}
