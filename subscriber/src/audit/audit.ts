// Audit: compares the mirror with the Source's Resource List (or Index), byte for byte where the
// list gives hashes, by length where it gives only a length. Reports what is missing, extra (files
// no listed URI maps to) and different. Read-only: it never changes the mirror.
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { checkableAlgorithms, compareHashes, MultiHasher, type Entry } from '@rsnotify/shared';
import { isTempFileName, locateFile, uriToMirrorPath, type HttpGetter } from '../mirror/index.js';
import { readResourceList } from '../baseline/index.js';

export interface AuditReport {
  readonly inSync: boolean;
  /** Listed resources compared. */
  readonly checked: number;
  /** Listed URIs with no file in the mirror. */
  readonly missing: string[];
  /** Files in the mirror (paths relative to mirrorDir) that no listed URI maps to. */
  readonly extra: string[];
  readonly different: { uri: string; expected: string; actual: string }[];
  /** Listed URIs that cannot be mirrored (RSN_PATH_*): reported, never counted as in sync. */
  readonly unmappable?: { uri: string; code: string }[];
}

const PARALLEL = 8;

async function compareEntry(mirrorDir: string, entry: Entry, report: AuditReport & { expectedPaths: Set<string> }): Promise<void> {
  let path: string;
  try {
    path = uriToMirrorPath(mirrorDir, entry.loc);
  } catch (err) {
    report.unmappable!.push({ uri: entry.loc, code: (err as { code?: string }).code ?? 'RSN_PATH_UNMAPPABLE' });
    return;
  }
  path = await locateFile(path); // the same mapping as the writer: `%%self` inside a directory
  report.expectedPaths.add(path);
  let size: number;
  try {
    const s = await stat(path);
    if (!s.isFile()) { report.missing.push(entry.loc); return; }
    size = s.size;
  } catch {
    report.missing.push(entry.loc);
    return;
  }
  const md = entry.md;
  if (md?.length !== undefined && md.length !== size) {
    report.different.push({ uri: entry.loc, expected: `length:${md.length}`, actual: `length:${size}` });
    return;
  }
  const algorithms = checkableAlgorithms(md?.hash ?? []);
  if (algorithms.length === 0) return;
  const hasher = new MultiHasher(algorithms);
  for await (const chunk of createReadStream(path)) hasher.update(chunk as Buffer);
  const mismatches = compareHashes(md!.hash!, hasher.digests());
  if (mismatches.length > 0) {
    const m = mismatches[0]!;
    report.different.push({ uri: entry.loc, expected: `${m.algorithm}:${m.expected}`, actual: `${m.algorithm}:${m.actual}` });
  }
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw err;
  }
  for (const e of entries) {
    if (e.isFile() && !isTempFileName(e.name)) out.push(join(e.parentPath, e.name));
  }
  return out;
}

export async function auditMirror(resourceListUrl: string, mirrorDir: string, http: HttpGetter): Promise<AuditReport> {
  const report = {
    inSync: false, checked: 0, missing: [] as string[], extra: [] as string[],
    different: [] as AuditReport['different'], unmappable: [] as NonNullable<AuditReport['unmappable']>,
    expectedPaths: new Set<string>(),
  };
  const running = new Set<Promise<void>>();
  for await (const ev of readResourceList(http, resourceListUrl)) {
    if (ev.type !== 'entry') continue;
    report.checked++;
    const p = compareEntry(mirrorDir, ev.entry, report).finally(() => running.delete(p));
    running.add(p);
    if (running.size >= PARALLEL) await Promise.race(running);
  }
  await Promise.all(running);
  for (const file of await listFiles(mirrorDir)) {
    if (!report.expectedPaths.has(file)) report.extra.push(relative(mirrorDir, file));
  }
  report.extra.sort();
  const { expectedPaths: _e, ...out } = report;
  return {
    ...out,
    inSync: out.missing.length === 0 && out.extra.length === 0 && out.different.length === 0 && out.unmappable.length === 0,
  };
}

/** A one-line summary for logs and the CLI. */
export function describeAudit(r: AuditReport): string {
  if (r.inSync) return `in sync (${r.checked} resources)`;
  const first = (label: string, items: readonly string[]): string[] =>
    items.slice(0, 5).map((x) => `  ${label} ${x}`).concat(items.length > 5 ? [`  ... ${items.length - 5} more ${label}`] : []);
  return [
    `out of sync: ${r.missing.length} missing, ${r.extra.length} extra, ${r.different.length} different` +
      `${r.unmappable?.length ? `, ${r.unmappable.length} unmappable` : ''} of ${r.checked}`,
    ...first('missing', r.missing), ...first('different', r.different.map((d) => d.uri)), ...first('extra', r.extra),
  ].join('\n');
}
