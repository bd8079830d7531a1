// Catch-up (M-7, RC-22..RC-24): reads a Change List, or a Change List Index and the lists it names,
// and collects the changes in [from, to] in document order, with how far the lists provably cover.
// No SQLite and no timers: HTTP through the injected getter, the caller applies and moves the position.
import {
  compareDateTime,
  dateTimeFromMillis,
  entryToChange,
  parseHttpDate,
  RsnotifyError,
  streamDocument,
  type Change,
  type DateTime,
  type DocumentHeader,
  type Entry,
  type ErrorDetails,
} from '@rsnotify/shared';
import { headerValue, type HttpGetter } from '../mirror/index.js';
import {
  EntrySelector,
  joinsCoverage,
  provenInterval,
  type HistoryGoneReason,
  type ProvenInterval,
} from './coverage.js';
import type { SubscriberCodesOf } from '../errors/index.js';

export interface CatchUpSource {
  /** A Change List or a Change List Index URL (from the Capability List). */
  readonly changeListUrl: string;
}

export interface CatchUpResult {
  /**
   * Entries with from <= time <= to (and those without time where document order puts them), in
   * order, deduped. The bounds are inclusive on purpose: RN-11/RC-25 allow a change at exactly
   * `from` or `until` of either neighbouring interval, and the mirror skips a replayed change, so
   * taking a boundary change twice costs nothing while missing one loses it.
   */
  readonly changes: Change[];
  /** How far the lists provably cover (may be < to: a Change List lagging behind); never beyond `to`. */
  readonly coveredTo?: DateTime;
  /** The lists no longer reach back to `from` (the oldest starts after it, or history has a hole). */
  readonly historyGone: boolean;
  /**
   * A list was found that reaches back to `from` (so nothing is missing up to what it proves), even
   * when it proves nothing past `from` yet (coveredTo undefined: up to date, as far as it tells).
   */
  readonly reachesPosition?: boolean;
  /** Why, when historyGone. */
  readonly historyGoneReason?: HistoryGoneReason;
}

/**
 * RSN_CATCHUP_HTTP_STATUS: a list answered with another status than 200.
 * RSN_CATCHUP_NOT_CHANGELIST: the URL is not a Change List or Change List Index.
 * RSN_CATCHUP_TOO_DEEP: indexes nested deeper than we follow.
 */
export class CatchUpError extends RsnotifyError<SubscriberCodesOf<'CatchUpError'>> {
  constructor(code: SubscriberCodesOf<'CatchUpError'>, message: string, details: ErrorDetails) {
    super(code, message, { details });
    this.name = 'CatchUpError';
  }
}

const MAX_INDEX_DEPTH = 3;

const before = (a: DateTime, b: DateTime): boolean => compareDateTime(a, b) < 0;
const later = (a: DateTime | undefined, b: DateTime): DateTime =>
  a === undefined || before(a, b) ? b : a;

interface ListRef {
  readonly url: string;
  readonly from?: DateTime;
  readonly until?: DateTime;
}

/**
 * A true interval overlap of the list's [from, until] with [from, to], bounds included (entries may
 * sit on either bound, RC-25); an open list has no until, a list without from is read to find out.
 */
function overlaps(list: ListRef, from: DateTime, to: DateTime | undefined): boolean {
  if (list.until !== undefined && before(list.until, from)) return false; // ends before `from`
  if (to !== undefined && list.from !== undefined && before(to, list.from)) return false; // starts after `to`
  return true;
}

function isIndex(header: DocumentHeader): boolean {
  return header.root === 'sitemapindex';
}

function isChangeListKind(header: DocumentHeader): boolean {
  return (
    header.kind === 'change-list' ||
    header.kind === 'change-list-index' ||
    header.capability === 'changelist'
  );
}

class Collector {
  readonly changes: Change[] = [];
  private readonly seen = new Set<string>();
  /** Contiguous proven coverage from `from` on; undefined until a list reaching back to `from` is read. */
  covered: DateTime | undefined;
  historyGone: HistoryGoneReason | undefined;
  /** An entry after `to` was seen: later lists need not be read. */
  done = false;

  constructor(
    private readonly from: DateTime,
    private readonly to: DateTime | undefined,
  ) {}

  /** Coverage starts (or continues) only when the list's proven start reaches what is covered. */
  join(interval: Pick<ProvenInterval, 'start' | 'startProvenBy'>): boolean {
    const decision = joinsCoverage(this.covered ?? this.from, interval);
    if (!decision.joins) {
      // Nothing lists the changes between what is covered and the list's start: history gone.
      this.historyGone = decision.reason;
      return false;
    }
    if (this.covered === undefined) this.covered = this.from;
    return true;
  }

  cover(upTo: DateTime): void {
    this.covered = later(this.covered, upTo);
    if (this.to !== undefined && !before(this.covered, this.to)) this.done = true;
  }

  add(change: Change): void {
    if (change.time !== undefined) {
      const key = `${change.uri}\n${change.time.key}\n${change.change}`;
      if (this.seen.has(key)) return;
      this.seen.add(key);
    }
    this.changes.push(change);
  }
}

/**
 * Reads one Change List: the new entries in document order (RC-23, EntrySelector), and the interval
 * the list proves (RC-21/RC-22, provenInterval). A list without `from` (nor one on its index entry)
 * joins the coverage only once its earliest entry is known to reach back far enough.
 */
async function readList(
  c: Collector,
  from: DateTime,
  to: DateTime | undefined,
  header: DocumentHeader,
  entries: AsyncIterator<Entry>,
  responseDate: DateTime | undefined,
  indexFrom: DateTime | undefined,
): Promise<void> {
  const listFrom = header.md.from ?? indexFrom;
  let joined = false;
  if (listFrom !== undefined) {
    if (!c.join(provenInterval({ from: listFrom }))) return;
    joined = true;
  }
  const selector = new EntrySelector(from, to, listFrom !== undefined && !before(listFrom, from));
  let latestTime: DateTime | undefined;
  let sawEntry = false;
  for (;;) {
    const next = await entries.next();
    if (next.done) break;
    const change = entryToChange(next.value);
    if (!change) continue; // no rs:md/@change: not a change entry
    sawEntry = true;
    if (change.time !== undefined) {
      latestTime = later(latestTime, change.time);
      // RC-24 forward order: the first timed entry is the earliest the list proves.
      if (!joined) {
        if (!c.join(provenInterval({ earliestEntry: change.time }))) return;
        joined = true;
      }
    }
    for (const x of selector.push(change)) c.add(x);
    if (selector.stopped) break;
  }
  if (!joined) {
    // Entries without any time and no `from`: nothing proves where the list starts.
    if (sawEntry) c.join(provenInterval({}));
    return;
  }
  for (const x of selector.end()) c.add(x);
  if (selector.stopped && to !== undefined) c.cover(to);
  const proven = provenInterval({
    ...(header.md.until
      ? { until: header.md.until }
      : responseDate
        ? { readAt: responseDate }
        : {}),
    ...(latestTime ? { latestEntry: latestTime } : {}),
  });
  if (proven.end !== undefined) c.cover(proven.end);
}

async function open(
  http: HttpGetter,
  url: string,
): Promise<{
  header: DocumentHeader;
  entries: AsyncIterator<Entry>;
  date: DateTime | undefined;
  finish(): Promise<void>;
}> {
  const res = await http.stream(url, { timeoutMs: 120_000 });
  if (res.status !== 200) {
    await res.dump();
    throw new CatchUpError('RSN_CATCHUP_HTTP_STATUS', `GET ${url}: HTTP ${res.status}`, {
      url,
      status: res.status,
    });
  }
  const dateMs = parseHttpDate(headerValue(res.headers, 'date'));
  const events = streamDocument(res.body, { baseUrl: res.url });
  const pending: Entry[] = [];
  let header: DocumentHeader | undefined;
  try {
    for (;;) {
      const ev = await events.next();
      if (ev.done) break;
      if (ev.value.type === 'header') {
        header = ev.value.header;
        break;
      }
      pending.push(ev.value.entry); // header comes first by contract; tolerate otherwise
    }
  } catch (err) {
    await res.dump();
    throw err;
  }
  if (!header) {
    await res.dump();
    throw new CatchUpError('RSN_CATCHUP_NOT_CHANGELIST', `${url} is not a ResourceSync document`, {
      url,
    });
  }
  const entries: AsyncIterator<Entry> = {
    async next() {
      if (pending.length > 0) return { done: false, value: pending.shift()! };
      for (;;) {
        const ev = await events.next();
        if (ev.done) return { done: true, value: undefined };
        if (ev.value.type === 'entry') return { done: false, value: ev.value.entry };
      }
    },
  };
  return {
    header,
    entries,
    date: dateMs === undefined ? undefined : dateTimeFromMillis(Math.floor(dateMs / 1000) * 1000),
    async finish() {
      await events.return?.(undefined);
      await res.dump();
    },
  };
}

async function walk(
  http: HttpGetter,
  url: string,
  c: Collector,
  from: DateTime,
  to: DateTime | undefined,
  depth: number,
  indexFrom?: DateTime,
): Promise<void> {
  const doc = await open(http, url);
  try {
    if (!isChangeListKind(doc.header)) {
      throw new CatchUpError(
        'RSN_CATCHUP_NOT_CHANGELIST',
        `${url} is a ${doc.header.kind}, not a Change List or Change List Index`,
        {
          url,
          kind: doc.header.kind,
        },
      );
    }
    if (!isIndex(doc.header)) {
      await readList(c, from, to, doc.header, doc.entries, doc.date, indexFrom);
      return;
    }
    if (depth >= MAX_INDEX_DEPTH)
      throw new CatchUpError(
        'RSN_CATCHUP_TOO_DEEP',
        `Change List Indexes nested deeper than ${MAX_INDEX_DEPTH} at ${url}`,
        { url },
      );
    // RC-24: the index lists its Change Lists in forward chronological order.
    const lists: ListRef[] = [];
    for (;;) {
      const next = await doc.entries.next();
      if (next.done) break;
      const e = next.value;
      lists.push({
        url: e.loc,
        ...(e.md?.from ? { from: e.md.from } : {}),
        ...(e.md?.until ? { until: e.md.until } : {}),
      });
    }
    await doc.finish();
    // The oldest list starts after `from`: the Source no longer keeps that history.
    const oldest = lists[0]?.from ?? doc.header.md.from;
    if (oldest !== undefined && before(from, oldest) && c.covered === undefined) {
      c.historyGone = 'from-after-position';
      return;
    }
    for (const [i, list] of lists.entries()) {
      if (c.done || c.historyGone) break;
      // Entirely before `from`: already applied; a later list proves the rest.
      if (!overlaps(list, from, to)) continue;
      await walk(
        http,
        list.url,
        c,
        from,
        to,
        depth + 1,
        list.from ?? (i === 0 ? doc.header.md.from : undefined),
      );
    }
  } finally {
    await doc.finish();
  }
}

/**
 * Collects every change in [from, to] from the Change List (Index) at `src.changeListUrl`.
 * `to` undefined = up to whatever the lists hold now (polling mode, the `sync` command).
 */
export async function collectChanges(
  src: CatchUpSource,
  from: DateTime,
  to: DateTime | undefined,
  http: HttpGetter,
): Promise<CatchUpResult> {
  const c = new Collector(from, to);
  await walk(http, src.changeListUrl, c, from, to, 0);
  if (c.historyGone)
    return { changes: c.changes, historyGone: true, historyGoneReason: c.historyGone };
  let coveredTo = c.covered;
  if (coveredTo !== undefined && to !== undefined && before(to, coveredTo)) coveredTo = to;
  // Coverage that does not get past `from` proves nothing new.
  if (coveredTo !== undefined && !before(from, coveredTo)) coveredTo = undefined;
  return {
    changes: c.changes,
    ...(coveredTo ? { coveredTo } : {}),
    historyGone: false,
    reachesPosition: c.covered !== undefined,
  };
}
