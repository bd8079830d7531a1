// The coverage rule and the failure policy, as plain functions over plain data (no I/O, no clock).
//  - Coverage (RC-21..RC-24, RN-5): the position moves only over an interval a document proves
//    complete. A Change List proves `from..until` (an open one up to its newest entry or the time it
//    was read, RC-22); without `from` it proves only from its earliest entry on, because the oldest
//    changes are the ones a Source drops. A list that starts after what is covered leaves a hole:
//    the history is gone (re-baseline), and the reason says why.
//  - New entries (RC-23, RC-25): document order governs. Once an entry is known to be after the
//    position, every entry behind it is new, whatever its lastmod; an entry without a change time
//    sits between its neighbours.
//  - Failures: one classification of a failed change, and what remains once later changes are known.
import { compareDateTime, type Change, type DateTime } from '@rsnotify/shared';

const before = (a: DateTime, b: DateTime): boolean => compareDateTime(a, b) < 0;
const latest = (a: DateTime | undefined, b: DateTime | undefined): DateTime | undefined =>
  a === undefined ? b : b === undefined ? a : before(a, b) ? b : a;

/** Why the Change Lists cannot prove the interval after the position. */
export type HistoryGoneReason =
  /** A list without `from` whose earliest entry is after the position (or that has no timed entry). */
  | 'no-from'
  /** A list (or the index) whose `from` is after the position. */
  | 'from-after-position';

/** What one read list says about its own bounds. */
export interface ListFacts {
  /** `rs:md/@from` of the list (or of its index entry). */
  readonly from?: DateTime;
  /** `rs:md/@until`: the list is closed. */
  readonly until?: DateTime;
  /** The first change time in document order (the earliest, RC-24 forward order). */
  readonly earliestEntry?: DateTime;
  /** The latest change time listed. */
  readonly latestEntry?: DateTime;
  /** When the Source served the list (HTTP Date), for an open list (RC-22). */
  readonly readAt?: DateTime;
}

/** The interval a list proves: `start` undefined when nothing in the document says where it starts. */
export interface ProvenInterval {
  readonly start?: DateTime;
  readonly startProvenBy: 'from' | 'earliest-entry' | 'nothing';
  readonly end?: DateTime;
}

/** RC-21/RC-22: what interval one Change List proves complete. */
export function provenInterval(list: ListFacts): ProvenInterval {
  const start = list.from ?? list.earliestEntry;
  const startProvenBy =
    list.from !== undefined
      ? 'from'
      : list.earliestEntry !== undefined
        ? 'earliest-entry'
        : 'nothing';
  // A closed list ends at its until; an open one at its newest entry or the moment it was served.
  const end = list.until ?? latest(list.latestEntry, list.readAt);
  return { ...(start ? { start } : {}), startProvenBy, ...(end ? { end } : {}) };
}

export type JoinDecision =
  { readonly joins: true } | { readonly joins: false; readonly reason: HistoryGoneReason };

/**
 * Does a list whose proven interval starts at `start` continue coverage that reaches `reach` (the
 * position, or what earlier lists proved)? A change at exactly `reach` may sit in either interval
 * (RC-25, RN-11), so equality joins.
 */
export function joinsCoverage(
  reach: DateTime,
  interval: Pick<ProvenInterval, 'start' | 'startProvenBy'>,
): JoinDecision {
  if (interval.start === undefined) return { joins: false, reason: 'no-from' };
  if (!before(reach, interval.start)) return { joins: true };
  return {
    joins: false,
    reason: interval.startProvenBy === 'from' ? 'from-after-position' : 'no-from',
  };
}

/**
 * RC-23: picks the new entries of one list (or notification) in document order. Push each change in
 * order; `end()` at the end of the document. Entries no later than `after` are old until one is seen
 * after it; from then on every entry is new. Entries without a change time wait for the next timed
 * one: before an old one they are old, otherwise new. An entry after `to` ends the selection.
 */
export class EntrySelector {
  private started: boolean;
  private pending: Change[] = [];
  stopped = false;

  /** `allNew`: the document itself starts at or after `after` (its `from` >= the position). */
  constructor(
    private readonly after: DateTime,
    private readonly to: DateTime | undefined,
    allNew: boolean,
  ) {
    this.started = allNew;
  }

  /** The changes taken by this entry (possibly with the timeless ones before it). */
  push(change: Change): readonly Change[] {
    if (this.stopped) return [];
    const t = change.time;
    if (t === undefined) {
      if (this.started) return [change];
      this.pending.push(change);
      return [];
    }
    if (this.to !== undefined && before(this.to, t)) {
      // After `to`: the timeless ones before it may lie before `to`; applying a change early is
      // harmless (its notification applies it again, as a replay), missing one is not.
      this.stopped = true;
      return this.flush();
    }
    if (!this.started && before(t, this.after)) {
      this.pending = []; // they precede an old entry: old too
      return [];
    }
    this.started = true;
    const taken = this.flush();
    taken.push(change);
    return taken;
  }

  /** End of the document: timeless entries after the last old one may be new (never guess old). */
  end(): readonly Change[] {
    return this.stopped ? [] : this.flush();
  }

  private flush(): Change[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }
}

/** What a failed change means for the position. */
export type FailureKind =
  /** The path mapping refuses the URI: no retry can help; reported, never blocking. */
  | 'refused'
  /** The Source says the resource is gone (404/410): deleted after the change was announced. */
  | 'gone'
  /** The bytes do not match the announced hash/length: the resource has usually changed again. */
  | 'mismatch'
  /** Anything else (network, disk, 5xx): the position must wait for a retry. */
  | 'blocking';

export interface FailureFacts {
  readonly code: string;
  readonly status?: number;
}

const REFUSED_CODES = new Set(['RSN_PATH_ESCAPE', 'RSN_PATH_UNMAPPABLE']);

export function classifyFailure(error: FailureFacts): FailureKind {
  if (REFUSED_CODES.has(error.code)) return 'refused';
  if (error.code === 'RSN_HTTP_STATUS' && (error.status === 404 || error.status === 410))
    return 'gone';
  if (error.code === 'RSN_HASH_MISMATCH' || error.code === 'RSN_LENGTH_MISMATCH') return 'mismatch';
  return 'blocking';
}

/** A failure a later change of the same URI explains (the later change fetches the current state). */
export function isOutdatable(kind: FailureKind): boolean {
  return kind === 'gone' || kind === 'mismatch';
}

/** Whether a failure that nothing explains must hold the position (promise: never lose a change). */
export function holdsPosition(kind: FailureKind): boolean {
  return kind === 'blocking' || kind === 'mismatch';
}

export interface KnownFailure {
  readonly uri: string;
  readonly time?: DateTime;
  readonly kind: FailureKind;
}

/**
 * Given the failures and the later changes known (buffered notifications, the Change Lists after
 * the interval), the failures that remain: an outdatable failure goes away when a later change of the
 * same URI is known (later in time, or either without a time: document order says later).
 */
export function remainingFailures<F extends KnownFailure>(
  failures: readonly F[],
  later: Iterable<Pick<Change, 'uri' | 'time'>>,
): F[] {
  const newest = new Map<string, DateTime | null>();
  for (const c of later) {
    if (c.time === undefined) newest.set(c.uri, null);
    else if (newest.get(c.uri) !== null)
      newest.set(c.uri, latest(newest.get(c.uri) ?? undefined, c.time)!);
  }
  return failures.filter((f) => {
    if (!isOutdatable(f.kind) || !newest.has(f.uri)) return true;
    const t = newest.get(f.uri);
    if (t === null || f.time === undefined) return false;
    return !before(f.time, t!);
  });
}
