// Rows of the bridge tables (the same columns in both engines) to and from the records of the
// bridge store contract (bridge-repository.ts).
import type { BridgedSourceRecord, BridgeListState, BridgePosition } from './bridge-repository.js';
import { StoreError } from './errors.js';

export interface BridgeSourceRow {
  readonly id: number;
  readonly name: string;
  readonly pollUrl: string;
  readonly intervalMs: number;
  readonly capabilityListUrl: string | null;
  readonly changeListUrl: string | null;
  readonly discoveredAt: number | null;
  readonly indexEtag: string | null;
  readonly indexLastModified: string | null;
  readonly coveredTo: string | null;
  readonly chainFrom: string | null;
  readonly lastPollAt: number | null;
  readonly lastError: string | null;
  readonly generation: number;
  readonly createdAt: number;
}

export interface BridgeListRow {
  readonly url: string;
  readonly listFrom: string | null;
  readonly listUntil: string | null;
  readonly consumed: number;
  readonly lastKey: string | null;
  readonly complete: boolean;
  readonly coveredTo: string | null;
  readonly etag: string | null;
  readonly lastModified: string | null;
}

const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

function toList(r: BridgeListRow): BridgeListState {
  return {
    url: r.url,
    consumed: r.consumed,
    complete: r.complete,
    ...(r.listFrom !== null ? { from: r.listFrom } : {}),
    ...(r.listUntil !== null ? { until: r.listUntil } : {}),
    ...(r.lastKey !== null ? { lastKey: r.lastKey } : {}),
    ...(r.coveredTo !== null ? { coveredTo: r.coveredTo } : {}),
    ...(r.etag !== null ? { etag: r.etag } : {}),
    ...(r.lastModified !== null ? { lastModified: r.lastModified } : {}),
  };
}

export function toBridgedSource(
  r: BridgeSourceRow,
  lists: readonly BridgeListRow[],
): BridgedSourceRecord {
  const position: BridgePosition = {
    ...(r.capabilityListUrl !== null ? { capabilityListUrl: r.capabilityListUrl } : {}),
    ...(r.changeListUrl !== null ? { changeListUrl: r.changeListUrl } : {}),
    ...(r.discoveredAt !== null ? { discoveredAt: r.discoveredAt } : {}),
    ...(r.indexEtag !== null ? { indexEtag: r.indexEtag } : {}),
    ...(r.indexLastModified !== null ? { indexLastModified: r.indexLastModified } : {}),
    ...(r.coveredTo !== null ? { coveredTo: r.coveredTo } : {}),
    ...(r.chainFrom !== null ? { chainFrom: r.chainFrom } : {}),
    lists: lists.map(toList),
  };
  return {
    id: r.id,
    name: r.name,
    pollUrl: r.pollUrl,
    intervalMs: r.intervalMs,
    createdAt: r.createdAt,
    lastPollAt: opt(r.lastPollAt),
    lastError: opt(r.lastError),
    generation: r.generation,
    position,
  };
}

/** The bridge_sources columns a committed poll sets. */
export function positionColumns(p: BridgePosition) {
  return {
    capabilityListUrl: p.capabilityListUrl ?? null,
    changeListUrl: p.changeListUrl ?? null,
    discoveredAt: p.discoveredAt ?? null,
    indexEtag: p.indexEtag ?? null,
    indexLastModified: p.indexLastModified ?? null,
    coveredTo: p.coveredTo ?? null,
    chainFrom: p.chainFrom ?? null,
  };
}

/** The bridge_lists rows of a position, in index order. */
export function listRows(bridgeSourceId: number, p: BridgePosition) {
  return p.lists.map((l, ord) => ({
    bridgeSourceId,
    url: l.url,
    ord,
    listFrom: l.from ?? null,
    listUntil: l.until ?? null,
    consumed: l.consumed,
    lastKey: l.lastKey ?? null,
    complete: l.complete,
    coveredTo: l.coveredTo ?? null,
    etag: l.etag ?? null,
    lastModified: l.lastModified ?? null,
  }));
}

export function bridgeExists(name: string): StoreError {
  return new StoreError(
    'RSN_BRIDGE_EXISTS',
    `a bridged Source named ${JSON.stringify(name)} exists already`,
    { details: { name } },
  );
}

export function positionMoved(name: string | number, expected: number, found: number): StoreError {
  return new StoreError(
    'RSN_BRIDGE_POSITION_MOVED',
    `bridged Source ${name}: another poll committed first (generation ${found}, this poll read ${expected}); nothing stored`,
    { details: { expected, found } },
  );
}
