// Reconciliation (`audit NAME --repair`, and the daemon every `reconcileInterval`): audit the mirror
// against the Resource List, then repair through the same verified writer: fetch what is missing or
// different (checked against the listed hash/length), remove what no listed URI maps to. This is
// what finds a change a Source never announced.
// A Source that keeps changing is no error: a resource that changed again after the list's `at`
// fails verification or is gone (404/410) and is counted `changedMeanwhile`; its own change brings
// it. An unlisted URI is removed only when its last applied change is not after the list's `at`
// (RC-15: the list reflects every change up to `at`); one created after `at` is not listed yet and
// stays. Files no known URI accounts for (a crash, an older layout) are removed.
import { join } from 'node:path';
import { parseDateTime } from '@rsnotify/shared';
import { classifyFailure, isOutdatable } from '../catchup/index.js';
import {
  locateFile,
  removeFile,
  uriToMirrorPath,
  type ApplyResult,
  type HttpGetter,
  type Mirror,
} from '../mirror/index.js';
import { auditMirror, type AuditReport, type RepairPlan } from './audit.js';

export interface ReconcileDeps {
  readonly resourceListUrl: string;
  readonly mirrorDir: string;
  readonly http: HttpGetter;
  readonly mirror: Mirror;
  /** URIs the mirror's state knows. */
  readonly knownUris: () => Promise<Iterable<string>>;
  /** The key (DateTime.key) of the last change applied to a URI, if recorded. */
  readonly lastChangeKey: (uri: string) => Promise<string | undefined>;
}

export interface ReconcileResult {
  /** The audit before the repair. */
  readonly report: AuditReport;
  /** Every apply result of the repair (for events, metrics, hooks). */
  readonly results: ApplyResult[];
  readonly fetched: number;
  readonly removed: number;
  /** Repairs that failed for another reason than the Source changing meanwhile. */
  readonly failed: number;
  /** Differences the Source's own later changes explain (or unlisted URIs changed after `at`). */
  readonly changedMeanwhile: number;
}

export async function reconcileMirror(deps: ReconcileDeps): Promise<ReconcileResult> {
  const plan: RepairPlan = { fetch: [], listed: new Set() };
  const report = await auditMirror(deps.resourceListUrl, deps.mirrorDir, deps.http, plan);
  const results: ApplyResult[] = [];
  let changedMeanwhile = 0;
  if (plan.fetch.length > 0)
    results.push(...(await deps.mirror.apply(plan.fetch, { force: true })));
  let removed = 0;
  if (report.extra.length > 0) {
    const atKey = report.at === undefined ? undefined : parseDateTime(report.at).key;
    const unlisted: { uri: string; change: 'deleted' }[] = [];
    const newer = new Set<string>();
    for (const uri of await deps.knownUris()) {
      if (plan.listed.has(uri)) continue;
      const key = await deps.lastChangeKey(uri);
      if (atKey === undefined || (key !== undefined && key > atKey)) newer.add(uri);
      else unlisted.push({ uri, change: 'deleted' });
    }
    const deleted = unlisted.length > 0 ? await deps.mirror.apply(unlisted, { force: true }) : [];
    results.push(...deleted);
    removed += deleted.filter((r) => r.outcome === 'deleted').length;
    changedMeanwhile += newer.size;
    // Files no known URI accounts for (left by a crash or an older layout): removed by path.
    const keep = new Set<string>();
    for (const uri of newer) {
      try {
        keep.add(await locateFile(uriToMirrorPath(deps.mirrorDir, uri)));
      } catch {
        /* unmappable: no file */
      }
    }
    const after = await auditMirror(deps.resourceListUrl, deps.mirrorDir, deps.http).catch(
      () => undefined,
    );
    for (const rel of after?.extra ?? []) {
      if (keep.has(join(deps.mirrorDir, rel))) continue;
      await removeFile(join(deps.mirrorDir, rel), rel);
      removed++;
    }
  }
  let fetched = 0;
  let failed = 0;
  for (const r of results) {
    if (r.outcome === 'written') fetched++;
    else if (r.outcome === 'failed') {
      if (r.error && isOutdatable(classifyFailure(r.error))) changedMeanwhile++;
      else failed++;
    }
  }
  return { report, results, fetched, removed, failed, changedMeanwhile };
}
