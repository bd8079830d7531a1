// Audit: compares the mirror with the Source's Resource List (or Index), byte for byte where the
// list gives hashes, by length where it gives only a length. Reports what is missing, extra (files
// no listed URI maps to) and different. Read-only: it never changes the mirror.
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import {
  checkableAlgorithms,
  compareHashes,
  MultiHasher,
  type Change,
  type DateTime,
  type Entry,
} from '@rsnotify/shared';
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
  /** The Resource List's `at`. */
  readonly at?: string;
}

/** What `--repair` needs besides the report: the listed facts of what differs, and every listed URI. */
export interface RepairPlan {
  /** One change per missing or different resource, with the listed hash/length/lastmod. */
  readonly fetch: Change[];
  readonly listed: Set<string>;
}

type Working = Omit<AuditReport, 'checked'> & {
  checked: number;
  expectedPaths: Set<string>;
  plan?: RepairPlan;
  listAt?: DateTime;
};

function planFetch(report: Working, entry: Entry): void {
  if (!report.plan) return;
  report.plan.fetch.push({
    uri: entry.loc,
    change: 'updated',
    ...(report.listAt ? { time: report.listAt } : {}),
    ...(entry.lastmod ? { lastmod: entry.lastmod } : {}),
    ...(entry.md?.hash ? { hash: entry.md.hash } : {}),
    ...(entry.md?.length !== undefined ? { length: entry.md.length } : {}),
  });
}

const PARALLEL = 8;

async function compareEntry(mirrorDir: string, entry: Entry, report: Working): Promise<void> {
  report.plan?.listed.add(entry.loc);
  let path: string;
  try {
    path = uriToMirrorPath(mirrorDir, entry.loc);
  } catch (err) {
    report.unmappable!.push({
      uri: entry.loc,
      code: (err as { code?: string }).code ?? 'RSN_PATH_UNMAPPABLE',
    });
    return;
  }
  path = await locateFile(path); // the same mapping as the writer: `%%self` inside a directory
  report.expectedPaths.add(path);
  let size: number;
  try {
    const s = await stat(path);
    if (!s.isFile()) {
      report.missing.push(entry.loc);
      planFetch(report, entry);
      return;
    }
    size = s.size;
  } catch {
    report.missing.push(entry.loc);
    planFetch(report, entry);
    return;
  }
  const md = entry.md;
  if (md?.length !== undefined && md.length !== size) {
    report.different.push({
      uri: entry.loc,
      expected: `length:${md.length}`,
      actual: `length:${size}`,
    });
    planFetch(report, entry);
    return;
  }
  const algorithms = checkableAlgorithms(md?.hash ?? []);
  if (algorithms.length === 0) return;
  const hasher = new MultiHasher(algorithms);
  for await (const chunk of createReadStream(path)) hasher.update(chunk as Buffer);
  const mismatches = compareHashes(md!.hash!, hasher.digests());
  if (mismatches.length > 0) {
    const m = mismatches[0]!;
    report.different.push({
      uri: entry.loc,
      expected: `${m.algorithm}:${m.expected}`,
      actual: `${m.algorithm}:${m.actual}`,
    });
    planFetch(report, entry);
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

/** `plan`: filled in for `--repair` (what to fetch, every listed URI). */
export async function auditMirror(
  resourceListUrl: string,
  mirrorDir: string,
  http: HttpGetter,
  plan?: RepairPlan,
): Promise<AuditReport> {
  const report: Working & {
    missing: string[];
    extra: string[];
    different: AuditReport['different'][number][];
    unmappable: NonNullable<AuditReport['unmappable']>;
  } = {
    inSync: false,
    checked: 0,
    missing: [],
    extra: [],
    different: [],
    unmappable: [],
    expectedPaths: new Set<string>(),
    ...(plan ? { plan } : {}),
  };
  const running = new Set<Promise<void>>();
  for await (const ev of readResourceList(http, resourceListUrl)) {
    if (ev.type === 'at') {
      report.listAt = ev.at;
      continue;
    }
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
  const { expectedPaths: _e, plan: _p, listAt, ...out } = report;
  return {
    ...out,
    ...(listAt ? { at: listAt.lexical } : {}),
    inSync:
      out.missing.length === 0 &&
      out.extra.length === 0 &&
      out.different.length === 0 &&
      out.unmappable.length === 0,
  };
}

/** A one-line summary for logs and the CLI. */
export function describeAudit(r: AuditReport): string {
  if (r.inSync) return `in sync (${r.checked} resources)`;
  const first = (label: string, items: readonly string[]): string[] =>
    items
      .slice(0, 5)
      .map((x) => `  ${label} ${x}`)
      .concat(items.length > 5 ? [`  ... ${items.length - 5} more ${label}`] : []);
  return [
    `out of sync: ${r.missing.length} missing, ${r.extra.length} extra, ${r.different.length} different` +
      `${r.unmappable?.length ? `, ${r.unmappable.length} unmappable` : ''} of ${r.checked}`,
    ...first('missing', r.missing),
    ...first(
      'different',
      r.different.map((d) => d.uri),
    ),
    ...first('extra', r.extra),
  ].join('\n');
}
