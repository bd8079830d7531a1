// Catch-up (M-7, RC-22..RC-24): reads a Change List, or a Change List Index and the lists it names,
// and collects the changes in [from, to] in document order, with how far the lists provably cover.
// No SQLite and no timers: HTTP through the injected getter, the caller applies and moves the position.
import {
  compareDateTime, dateTimeFromMillis, entryToChange, parseHttpDate, RsnotifyError, streamDocument,
  type Change, type DateTime, type DocumentHeader, type Entry, type ErrorDetails,
} from '@rsnotify/shared';
import { headerValue, type HttpGetter } from '../mirror/index.js';
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
const later = (a: DateTime | undefined, b: DateTime): DateTime => (a === undefined || before(a, b) ? b : a);

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
  return header.kind === 'change-list' || header.kind === 'change-list-index' || header.capability === 'changelist';
}

class Collector {
  readonly changes: Change[] = [];
  private readonly seen = new Set<string>();
  /** Contiguous proven coverage from `from` on; undefined until a list reaching back to `from` is read. */
  covered: DateTime | undefined;
  historyGone = false;
  /** An entry at or after `to` was seen: later lists need not be read. */
  done = false;

  constructor(private readonly from: DateTime, private readonly to: DateTime | undefined) {}

  /** Coverage starts (or continues) only when the list begins at or before what is covered so far. */
  startList(listFrom: DateTime | undefined): boolean {
    const reach = this.covered ?? this.from;
    if (listFrom !== undefined && before(reach, listFrom)) {
      // Nothing lists the changes in [reach, listFrom): the history has gone (or has a hole).
      this.historyGone = true;
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
 * Reads one Change List: entries with from <= time <= to, plus timeless entries where document order
 * places them (RC-23: an entry without time is newer than the entries before it and older than the
 * ones after it).
 */
async function readList(
  c: Collector, from: DateTime, to: DateTime | undefined,
  header: DocumentHeader, entries: AsyncIterator<Entry>, responseDate: DateTime | undefined,
): Promise<void> {
  if (!c.startList(header.md.from)) return;
  let timeless: Change[] = []; // entries without time since the last timed one
  let lastTime: DateTime | undefined;
  for (;;) {
    const next = await entries.next();
    if (next.done) break;
    const change = entryToChange(next.value);
    if (!change) continue; // no rs:md/@change: not a change entry
    if (change.time === undefined) { timeless.push(change); continue; }
    const t = change.time;
    lastTime = later(lastTime, t);
    if (before(t, from)) { timeless = []; continue; } // t < from: it and the timeless before it are applied
    if (to !== undefined && before(to, t)) {
      // t > to: the timeless ones before it may lie before `to`; applying a change early is harmless
      // (the notification applies it again), missing one is not.
      for (const x of timeless) c.add(x);
      timeless = [];
      c.cover(to);
      break;
    }
    for (const x of timeless) c.add(x);
    timeless = [];
    c.add(change);
  }
  if (!c.done) for (const x of timeless) c.add(x);
  // RC-22: a closed list covers up to its until; an open one up to its newest entry, or up to the
  // moment it was served (HTTP Date, the Source's clock), whichever is later.
  if (header.md.until !== undefined) c.cover(header.md.until);
  else {
    if (lastTime !== undefined) c.cover(lastTime);
    if (responseDate !== undefined) c.cover(responseDate);
  }
}

async function open(http: HttpGetter, url: string): Promise<{
  header: DocumentHeader; entries: AsyncIterator<Entry>; date: DateTime | undefined; finish(): Promise<void>;
}> {
  const res = await http.stream(url, { timeoutMs: 120_000 });
  if (res.status !== 200) {
    await res.dump();
    throw new CatchUpError('RSN_CATCHUP_HTTP_STATUS', `GET ${url}: HTTP ${res.status}`, { url, status: res.status });
  }
  const dateMs = parseHttpDate(headerValue(res.headers, 'date'));
  const events = streamDocument(res.body, { baseUrl: res.url });
  const pending: Entry[] = [];
  let header: DocumentHeader | undefined;
  try {
    for (;;) {
      const ev = await events.next();
      if (ev.done) break;
      if (ev.value.type === 'header') { header = ev.value.header; break; }
      pending.push(ev.value.entry); // header comes first by contract; tolerate otherwise
    }
  } catch (err) {
    await res.dump();
    throw err;
  }
  if (!header) {
    await res.dump();
    throw new CatchUpError('RSN_CATCHUP_NOT_CHANGELIST', `${url} is not a ResourceSync document`, { url });
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

async function walk(http: HttpGetter, url: string, c: Collector, from: DateTime, to: DateTime | undefined, depth: number): Promise<void> {
  const doc = await open(http, url);
  try {
    if (!isChangeListKind(doc.header)) {
      throw new CatchUpError('RSN_CATCHUP_NOT_CHANGELIST', `${url} is a ${doc.header.kind}, not a Change List or Change List Index`, {
        url, kind: doc.header.kind,
      });
    }
    if (!isIndex(doc.header)) {
      await readList(c, from, to, doc.header, doc.entries, doc.date);
      return;
    }
    if (depth >= MAX_INDEX_DEPTH) throw new CatchUpError('RSN_CATCHUP_TOO_DEEP', `Change List Indexes nested deeper than ${MAX_INDEX_DEPTH} at ${url}`, { url });
    // RC-24: the index lists its Change Lists in forward chronological order.
    const lists: ListRef[] = [];
    for (;;) {
      const next = await doc.entries.next();
      if (next.done) break;
      const e = next.value;
      lists.push({ url: e.loc, ...(e.md?.from ? { from: e.md.from } : {}), ...(e.md?.until ? { until: e.md.until } : {}) });
    }
    await doc.finish();
    // The oldest list starts after `from`: the Source no longer keeps that history.
    const oldest = lists[0]?.from ?? doc.header.md.from;
    if (oldest !== undefined && before(from, oldest) && c.covered === undefined) {
      c.historyGone = true;
      return;
    }
    for (const list of lists) {
      if (c.done || c.historyGone) break;
      if (!overlaps(list, from, to)) {
        // Entirely before `from`: already applied, but it proves coverage up to its until.
        if (list.until !== undefined && before(list.until, from) && c.startList(list.from)) c.cover(from);
        continue;
      }
      await walk(http, list.url, c, from, to, depth + 1);
    }
  } finally {
    await doc.finish();
  }
}

/**
 * Collects every change in [from, to] from the Change List (Index) at `src.changeListUrl`.
 * `to` undefined = up to whatever the lists hold now (polling mode, the `sync` command).
 */
export async function collectChanges(src: CatchUpSource, from: DateTime, to: DateTime | undefined, http: HttpGetter): Promise<CatchUpResult> {
  const c = new Collector(from, to);
  await walk(http, src.changeListUrl, c, from, to, 0);
  if (c.historyGone) return { changes: c.changes, historyGone: true };
  let coveredTo = c.covered;
  if (coveredTo !== undefined && to !== undefined && before(to, coveredTo)) coveredTo = to;
  // Coverage that does not get past `from` proves nothing new.
  if (coveredTo !== undefined && !before(from, coveredTo)) coveredTo = undefined;
  return { changes: c.changes, ...(coveredTo ? { coveredTo } : {}), historyGone: false };
}
