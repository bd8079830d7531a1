// The bridge's protocol core, pure: given where it stood in a Source's Change Lists and what one poll
// read, which entries are new, which intervals they are published under, and where it stands next.
// Coverage follows the subscriber's catch-up rule (RC-22, RC-24): a list's [from, until] proves its
// interval; an open list proves up to its newest entry or the moment it was served (HTTP Date); a
// list without `from` proves only from its earliest entry; a list starting after what is proven
// (history cut short, a hole) proves nothing before its start. Where proof breaks the next interval
// starts where proof starts again (RN-5): subscribers see the gap and repair it themselves.
import {
  compareDateTime,
  entryToChange,
  parseDateTime,
  type DateTime,
  type Entry,
} from '@rsnotify/shared';
import type { BridgeListState, BridgePosition } from '../store/index.js';

export interface ListRef {
  readonly url: string;
  readonly from?: DateTime;
  readonly until?: DateTime;
}

export type FetchedList =
  | {
      readonly url: string;
      readonly status: 'fresh';
      readonly from?: DateTime;
      readonly until?: DateTime;
      readonly entries: readonly Entry[];
      /** HTTP Date of the answer (whole seconds, the Source's clock). */
      readonly date?: DateTime;
      readonly etag?: string;
      readonly lastModified?: string;
    }
  | { readonly url: string; readonly status: 'unchanged' };

/** Entries published under one contiguous interval (before any split by size). */
export interface Segment {
  readonly from: DateTime;
  readonly until: DateTime;
  readonly entries: readonly Entry[];
}

export interface PollOutcome {
  readonly position: BridgePosition;
  readonly segments: readonly Segment[];
  /** Where proof of coverage broke: the interval not covered by any list read. */
  readonly gaps: readonly { readonly from: DateTime | undefined; readonly to: DateTime }[];
  /** Lists whose earlier entries changed under us (position re-derived from the coverage time). */
  readonly rewritten: readonly string[];
}

const before = (a: DateTime, b: DateTime): boolean => compareDateTime(a, b) < 0;
const latest = (a: DateTime | undefined, b: DateTime | undefined): DateTime | undefined =>
  a === undefined ? b : b === undefined ? a : before(a, b) ? b : a;
const parse = (s: string | undefined): DateTime | undefined =>
  s === undefined ? undefined : parseDateTime(s);

function entryTime(e: Entry): DateTime | undefined {
  return e.md?.datetime ?? e.lastmod;
}

/** Identity of an entry for the list position check. */
export function entryKey(e: Entry): string {
  return `${e.loc}\n${entryTime(e)?.key ?? ''}\n${e.md?.change ?? ''}`;
}

/** Whether the poll is the first one: nothing is proven yet, nothing is published. */
export function isInitial(position: BridgePosition): boolean {
  return position.coveredTo === undefined;
}

/**
 * Which lists to fetch this poll, in index order. The first poll reads only the newest list (the
 * bridge publishes from now on, not history); later polls read every list not yet read to its end
 * that can hold something after the covered time.
 */
export function listsToRead(position: BridgePosition, refs: readonly ListRef[]): ListRef[] {
  if (refs.length === 0) return [];
  if (isInitial(position)) return [refs[refs.length - 1]!];
  const covered = parse(position.coveredTo)!;
  const known = new Map(position.lists.map((l) => [l.url, l]));
  return refs.filter((r) => {
    const k = known.get(r.url);
    if (k?.complete) return false;
    // Closed before the covered time and never seen: all of it was there before the bridge's start.
    if (!k && r.until !== undefined && before(r.until, covered)) return false;
    return true;
  });
}

/** Applies one poll: `refs` the index's lists in order (one ref for a plain Change List). */
export function advance(
  position: BridgePosition,
  refs: readonly ListRef[],
  fetched: ReadonlyMap<string, FetchedList>,
): PollOutcome {
  const initial = isInitial(position);
  const known = new Map(position.lists.map((l) => [l.url, l]));
  const lists: BridgeListState[] = [];
  const segments: Segment[] = [];
  const gaps: { from: DateTime | undefined; to: DateTime }[] = [];
  const rewritten: string[] = [];
  let reach = parse(position.coveredTo);
  let chainFrom = parse(position.chainFrom) ?? reach;
  let pending: Entry[] = [];

  const closeSegment = (): void => {
    if (pending.length > 0 && chainFrom !== undefined && reach !== undefined) {
      segments.push({ from: chainFrom, until: reach, entries: pending });
      chainFrom = reach;
    }
    pending = [];
  };

  for (const ref of refs) {
    const k = known.get(ref.url);
    const f = fetched.get(ref.url);
    if (!f) {
      // Not read: read to its end already, or wholly before the bridge began.
      lists.push(
        k ?? {
          url: ref.url,
          consumed: 0,
          complete: true,
          ...(ref.from ? { from: ref.from.lexical } : {}),
          ...(ref.until ? { until: ref.until.lexical } : {}),
        },
      );
      continue;
    }
    if (f.status === 'unchanged') {
      if (k) {
        lists.push(k);
        reach = latest(reach, parse(k.coveredTo));
      }
      continue;
    }
    const entries = f.entries.filter((e) => entryToChange(e) !== undefined);
    const listFrom = f.from ?? ref.from;
    const listUntil = f.until ?? ref.until;
    let newestTime: DateTime | undefined;
    let earliestTime: DateTime | undefined;
    for (const e of entries) {
      const t = entryTime(e);
      if (t === undefined) continue;
      newestTime = latest(newestTime, t);
      if (earliestTime === undefined || before(t, earliestTime)) earliestTime = t;
    }
    // An open list proves [from, newest entry or HTTP Date] (RC-22); never less than its own from.
    const listReach = listUntil ?? latest(latest(newestTime, f.date), listFrom);
    const state: BridgeListState = {
      url: ref.url,
      consumed: entries.length,
      complete: listUntil !== undefined,
      ...(listFrom ? { from: listFrom.lexical } : {}),
      ...(listUntil ? { until: listUntil.lexical } : {}),
      ...(entries.length > 0 ? { lastKey: entryKey(entries[entries.length - 1]!) } : {}),
      ...(listReach ? { coveredTo: listReach.lexical } : {}),
      ...(f.etag ? { etag: f.etag } : {}),
      ...(f.lastModified ? { lastModified: f.lastModified } : {}),
    };
    lists.push(state);
    if (initial) {
      // The bridge starts here: what the list holds now predates it.
      reach = latest(reach, listReach);
      chainFrom = reach;
      continue;
    }

    let start = k?.consumed ?? 0;
    if (start > 0 && (start > entries.length || entryKey(entries[start - 1]!) !== k?.lastKey)) {
      // The Source rewrote what we had read: fall back on time, everything after what was covered.
      rewritten.push(ref.url);
      const covered = reach;
      start =
        covered === undefined
          ? 0
          : entries.findIndex((e) => {
              const t = entryTime(e);
              return t !== undefined && before(covered, t);
            });
      if (start < 0) start = entries.length;
    }
    const fresh = entries.slice(start);

    // Where this list's proof begins: its `from`, else its earliest entry.
    const proofStart = listFrom ?? earliestTime;
    if (proofStart === undefined || reach === undefined || before(reach, proofStart)) {
      // Nothing read proves [reach, proofStart): publish what was proven, restart the chain.
      closeSegment();
      const restart = proofStart ?? listReach;
      if (restart !== undefined) {
        gaps.push({ from: reach, to: restart });
        chainFrom = restart;
        reach = restart;
      }
    }
    pending.push(...fresh);
    reach = latest(reach, listReach);
  }
  closeSegment();

  const next: BridgePosition = {
    ...position,
    lists,
    ...(reach ? { coveredTo: reach.lexical } : {}),
    ...(chainFrom ? { chainFrom: chainFrom.lexical } : {}),
  };
  return { position: next, segments, gaps, rewritten };
}

/**
 * RN-13: a segment larger than `maxEntries` becomes consecutive intervals. Cuts fall after a timed
 * entry, whose time is the part's `until` and the next part's `from` (a change on the boundary
 * belongs to either, RN-11).
 */
export function splitSegment(segment: Segment, maxEntries: number): Segment[] {
  if (segment.entries.length <= maxEntries) return [segment];
  const out: Segment[] = [];
  let from = segment.from;
  let part: Entry[] = [];
  for (let i = 0; i < segment.entries.length; i++) {
    const e = segment.entries[i]!;
    part.push(e);
    const t = entryTime(e);
    const isLast = i === segment.entries.length - 1;
    if (
      !isLast &&
      part.length >= maxEntries &&
      t !== undefined &&
      !before(t, from) &&
      !before(segment.until, t)
    ) {
      out.push({ from, until: t, entries: part });
      from = t;
      part = [];
    }
  }
  out.push({ from, until: segment.until, entries: part });
  return out;
}
