// Baseline (M-7): fetch every resource of the Resource List (or Index) into the mirror and
// take the list's `at` as the position: RC-15 says the listed states reflect at least every change
// up to `at`, so catch-up continues from there.
import type { Change, DateTime } from '@rsnotify/shared';
import type { ApplyResult, Mirror } from '../mirror/index.js';
import type { HttpGetter } from '../mirror/index.js';
import { readResourceList } from './resource-list.js';

export interface BaselineOptions {
  /**
   * URIs the mirror held before (CONTROL's resources table). Those not in the list are deleted, so
   * a re-baseline after lost history also removes what was deleted meanwhile.
   */
  readonly previousUris?: () => Promise<Iterable<string>> | Iterable<string>;
  /** Changes handed to the mirror per call (default 256); a few calls are kept in flight. */
  readonly batchSize?: number;
}

export interface BaselineResult {
  readonly at: DateTime;
  readonly resources: number;
  readonly failed: ApplyResult[];
  /** Files written (resources minus skipped minus failed). */
  readonly written: number;
  /** Previously held URIs that are no longer listed, and were deleted. */
  readonly deleted: number;
}

const IN_FLIGHT_BATCHES = 4;

export async function runBaseline(
  resourceListUrl: string,
  http: HttpGetter,
  mirror: Mirror,
  options: BaselineOptions = {},
): Promise<BaselineResult> {
  const batchSize = options.batchSize ?? 256;
  const failed: ApplyResult[] = [];
  const listed = options.previousUris ? new Set<string>() : undefined;
  const inFlight: Promise<void>[] = [];
  let at: DateTime | undefined;
  let resources = 0;
  let written = 0;
  let deleted = 0;
  let batch: Change[] = [];

  const collect = (results: ApplyResult[]): void => {
    for (const r of results) {
      if (r.outcome === 'failed') failed.push(r);
      else if (r.outcome === 'written') written++;
      else if (r.outcome === 'deleted') deleted++;
    }
  };
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    // Batched durability: each resource's state is recorded only after its file, in a batch with
    // others, is fsync'd and in place (sync-group.ts); a crash leaves only unrecorded files behind,
    // which the baseline, run again because no position was saved, fetches again.
    const p = mirror.apply(batch, { batched: true }).then(collect);
    batch = [];
    inFlight.push(p);
    if (inFlight.length >= IN_FLIGHT_BATCHES) await inFlight.shift();
  };

  for await (const ev of readResourceList(http, resourceListUrl)) {
    if (ev.type === 'at') {
      at = ev.at;
      continue;
    }
    const e = ev.entry;
    resources++;
    listed?.add(e.loc);
    // The snapshot time stands for the change time: a resource the mirror already holds from a
    // later change is left alone (idempotency in the mirror), everything else is fetched.
    batch.push({
      uri: e.loc,
      change: 'updated',
      time: at!,
      ...(e.lastmod ? { lastmod: e.lastmod } : {}),
      ...(e.md?.hash ? { hash: e.md.hash } : {}),
      ...(e.md?.length !== undefined ? { length: e.md.length } : {}),
      ...(e.md?.type ? { type: e.md.type } : {}),
    });
    if (batch.length >= batchSize) await flush();
  }
  if (listed && options.previousUris) {
    for (const uri of await options.previousUris()) {
      if (!listed.has(uri)) {
        batch.push({ uri, change: 'deleted', time: at! });
        if (batch.length >= batchSize) await flush();
      }
    }
  }
  await flush();
  await Promise.all(inFlight);
  return { at: at!, resources, failed, written, deleted };
}
