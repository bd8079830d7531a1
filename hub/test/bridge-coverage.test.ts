// The bridge's pure core (bridge/coverage.ts, notifications.ts, schedule.ts): which entries are new,
// under which interval they are published, and when proof of coverage breaks (RC-22, RC-24, RN-5,
// RN-13). Table-style, no sockets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseChangeNotification, parseDateTime, type Entry } from '@rsnotify/shared';
import {
  advance,
  buildNotifications,
  listsToRead,
  nextPollAt,
  splitSegment,
  type FetchedList,
  type ListRef,
} from '../src/bridge/index.js';
import type { BridgePosition } from '../src/store/index.js';

const T = (s: number): string => `2026-01-01T00:00:${String(s).padStart(2, '0')}Z`;
const dt = (s: number) => parseDateTime(T(s));
const entry = (
  uri: string,
  s: number | undefined,
  change: 'created' | 'updated' | 'deleted' = 'updated',
): Entry => ({
  loc: `http://src.example/${uri}`,
  md: { change, ...(s !== undefined ? { datetime: dt(s) } : {}) },
  links: [],
});
const ref = (url: string, from?: number, until?: number): ListRef => ({
  url,
  ...(from !== undefined ? { from: dt(from) } : {}),
  ...(until !== undefined ? { until: dt(until) } : {}),
});
const fresh = (
  url: string,
  entries: Entry[],
  md: { from?: number; until?: number; date?: number } = {},
): FetchedList => ({
  url,
  status: 'fresh',
  entries,
  ...(md.from !== undefined ? { from: dt(md.from) } : {}),
  ...(md.until !== undefined ? { until: dt(md.until) } : {}),
  ...(md.date !== undefined ? { date: dt(md.date) } : {}),
});
const fetched = (...lists: FetchedList[]) => new Map(lists.map((l) => [l.url, l]));
const EMPTY: BridgePosition = { lists: [] };

test('first poll: reads only the newest list, publishes nothing, starts at what it proves', () => {
  const refs = [ref('l1', 0, 10), ref('l2', 10)];
  assert.deepEqual(
    listsToRead(EMPTY, refs).map((r) => r.url),
    ['l2'],
  );
  const o = advance(
    EMPTY,
    refs,
    fetched(fresh('l2', [entry('a', 12), entry('b', 15)], { from: 10, date: 16 })),
  );
  assert.equal(o.segments.length, 0);
  assert.equal(
    o.position.coveredTo,
    T(16),
    'open list: newest entry or HTTP Date, whichever is later (RC-22)',
  );
  assert.equal(o.position.chainFrom, T(16));
  assert.deepEqual(
    o.position.lists.map((l) => [l.url, l.consumed, l.complete]),
    [
      ['l1', 0, true],
      ['l2', 2, false],
    ],
  );
});

test('later polls: only entries after the list position, one contiguous interval from the last until', () => {
  const p0 = advance(
    EMPTY,
    [ref('l2', 10)],
    fetched(fresh('l2', [entry('a', 12)], { from: 10 })),
  ).position;
  assert.equal(p0.coveredTo, T(12));
  const o = advance(
    p0,
    [ref('l2', 10)],
    fetched(fresh('l2', [entry('a', 12), entry('b', 13), entry('c', 14)], { from: 10 })),
  );
  assert.equal(o.segments.length, 1);
  assert.equal(o.segments[0]!.from.lexical, T(12));
  assert.equal(o.segments[0]!.until.lexical, T(14));
  assert.deepEqual(
    o.segments[0]!.entries.map((e) => e.loc.split('/').pop()),
    ['b', 'c'],
  );
  // Nothing new: nothing published, the next `from` stays the last until (contiguity, RN-5).
  const idle = advance(
    o.position,
    [ref('l2', 10)],
    fetched(fresh('l2', [entry('a', 12), entry('b', 13), entry('c', 14)], { from: 10, date: 20 })),
  );
  assert.equal(idle.segments.length, 0);
  assert.equal(idle.position.chainFrom, T(14));
  assert.equal(idle.position.coveredTo, T(20));
  const after = advance(
    idle.position,
    [ref('l2', 10)],
    fetched(
      fresh('l2', [entry('a', 12), entry('b', 13), entry('c', 14), entry('d', 21)], { from: 10 }),
    ),
  );
  assert.equal(
    after.segments[0]!.from.lexical,
    T(14),
    'the interval reaches back to the last published until',
  );
  assert.equal(after.segments[0]!.until.lexical, T(21));
});

test('a list closes and a new one opens: the closed list is read to its end once, then never again', () => {
  const p0 = advance(
    EMPTY,
    [ref('l1', 0)],
    fetched(fresh('l1', [entry('a', 2)], { from: 0 })),
  ).position;
  const refs = [ref('l1', 0, 5), ref('l2', 5)];
  assert.deepEqual(
    listsToRead(p0, refs).map((r) => r.url),
    ['l1', 'l2'],
  );
  const o = advance(
    p0,
    refs,
    fetched(
      fresh('l1', [entry('a', 2), entry('b', 4)], { from: 0, until: 5 }),
      fresh('l2', [entry('c', 6)], { from: 5 }),
    ),
  );
  assert.equal(o.gaps.length, 0, 'l2 starts where l1 ends: coverage proven');
  assert.deepEqual(
    o.segments.map((s) => [s.from.lexical, s.until.lexical, s.entries.length]),
    [[T(2), T(6), 2]],
  );
  assert.deepEqual(
    listsToRead(o.position, refs).map((r) => r.url),
    ['l2'],
  );
});

test('history cut short: the oldest list starts after what is proven; the next from is where proof restarts', () => {
  const p0 = advance(
    EMPTY,
    [ref('l1', 0)],
    fetched(fresh('l1', [entry('a', 2)], { from: 0 })),
  ).position;
  // l1 and l2 fell out of retention while the bridge was away; l3 starts at 30.
  const refs = [ref('l3', 30)];
  const o = advance(p0, refs, fetched(fresh('l3', [entry('x', 31), entry('y', 33)], { from: 30 })));
  assert.deepEqual(
    o.gaps.map((g) => [g.from?.lexical, g.to.lexical]),
    [[T(2), T(30)]],
  );
  assert.deepEqual(
    o.segments.map((s) => [s.from.lexical, s.until.lexical]),
    [[T(30), T(33)]],
    'no notification papers over [2, 30)',
  );
});

test('a list without from proves coverage only from its earliest entry', () => {
  const p0 = advance(
    EMPTY,
    [ref('l1', 0, 5)],
    fetched(fresh('l1', [entry('a', 2)], { from: 0, until: 5 })),
  ).position;
  assert.equal(p0.coveredTo, T(5));
  const o = advance(
    p0,
    [ref('l1', 0, 5), ref('l2')],
    fetched(fresh('l2', [entry('b', 8), entry('c', 9)])),
  );
  assert.deepEqual(
    o.gaps.map((g) => [g.from?.lexical, g.to.lexical]),
    [[T(5), T(8)]],
  );
  assert.equal(o.segments[0]!.from.lexical, T(8));
  // Once read, its earliest entry lies inside what is proven: later polls continue without a gap.
  const again = advance(
    o.position,
    [ref('l1', 0, 5), ref('l2')],
    fetched(fresh('l2', [entry('b', 8), entry('c', 9), entry('d', 11)])),
  );
  assert.equal(again.gaps.length, 0);
  assert.deepEqual(
    again.segments.map((s) => [s.from.lexical, s.until.lexical, s.entries.length]),
    [[T(9), T(11), 1]],
  );
});

test('an open list proves at least its own from, even when its HTTP Date (whole seconds) is earlier', () => {
  const p0 = advance(
    EMPTY,
    [ref('l1', 10)],
    fetched(fresh('l1', [], { from: 10, date: 9 })),
  ).position;
  assert.equal(p0.coveredTo, T(10));
  const o = advance(
    p0,
    [ref('l1', 10, 12), ref('l2', 12)],
    fetched(
      fresh('l1', [entry('a', 11)], { from: 10, until: 12 }),
      fresh('l2', [], { from: 12, date: 12 }),
    ),
  );
  assert.deepEqual(o.gaps, [], 'no false gap at the start');
  assert.deepEqual(
    o.segments.map((s) => [s.from.lexical, s.until.lexical]),
    [[T(10), T(12)]],
  );
});

test('a gap between two lists read in one poll: what came before it is published under its own interval', () => {
  const p0 = advance(
    EMPTY,
    [ref('l1', 0)],
    fetched(fresh('l1', [entry('a', 1)], { from: 0 })),
  ).position;
  const o = advance(
    p0,
    [ref('l1', 0, 4), ref('l3', 9)],
    fetched(
      fresh('l1', [entry('a', 1), entry('b', 3)], { from: 0, until: 4 }),
      fresh('l3', [entry('c', 10)], { from: 9 }),
    ),
  );
  assert.deepEqual(
    o.segments.map((s) => [s.from.lexical, s.until.lexical, s.entries.length]),
    [
      [T(1), T(4), 1],
      [T(9), T(10), 1],
    ],
  );
});

test('an unchanged list (304) proves what it proved when last read; a rewritten list falls back on time', () => {
  const p0 = advance(
    EMPTY,
    [ref('l1', 0)],
    fetched(fresh('l1', [entry('a', 2), entry('b', 3)], { from: 0 })),
  ).position;
  const same = advance(p0, [ref('l1', 0)], fetched({ url: 'l1', status: 'unchanged' }));
  assert.equal(same.position.coveredTo, T(3));
  assert.equal(same.segments.length, 0);
  const rewritten = advance(
    p0,
    [ref('l1', 0)],
    fetched(fresh('l1', [entry('b', 3), entry('c', 5)], { from: 0 })),
  );
  assert.deepEqual(rewritten.rewritten, ['l1']);
  assert.deepEqual(
    rewritten.segments[0]!.entries.map((e) => e.loc.split('/').pop()),
    ['c'],
  );
});

test('entries without a time (RS 1.0 deletes) are published where the list puts them', () => {
  const p0 = advance(
    EMPTY,
    [ref('l1', 0)],
    fetched(fresh('l1', [entry('a', 2)], { from: 0 })),
  ).position;
  const o = advance(
    p0,
    [ref('l1', 0)],
    fetched(
      fresh('l1', [entry('a', 2), entry('gone', undefined, 'deleted'), entry('b', 4)], { from: 0 }),
    ),
  );
  assert.deepEqual(
    o.segments[0]!.entries.map((e) => e.loc.split('/').pop()),
    ['gone', 'b'],
  );
});

test('RN-13: a large segment becomes consecutive intervals cut after timed entries', () => {
  const entries = [1, 2, 3, 4, 5].map((s) => entry(`r${s}`, s));
  const parts = splitSegment({ from: dt(0), until: dt(9), entries }, 2);
  assert.deepEqual(
    parts.map((p) => [p.from.lexical, p.until.lexical, p.entries.length]),
    [
      [T(0), T(2), 2],
      [T(2), T(4), 2],
      [T(4), T(9), 1],
    ],
  );
});

test('notifications are valid change notifications with the bridged topic as self and the hub as hub', () => {
  const segments = [
    { from: dt(0), until: dt(9), entries: [1, 2, 3].map((s) => entry(`r${s}`, s)) },
  ];
  const out = buildNotifications(segments, {
    topicUrl: 'http://hub.example/hub/bridge/s',
    hubUrl: 'http://hub.example/hub',
    capabilityListUrl: 'http://src.example/cl.xml',
    receivedAt: 1,
    maxEntries: 2,
    maxBytes: 1 << 20,
  });
  assert.equal(out.length, 2);
  const first = parseChangeNotification(out[0]!.body.toString('utf8'));
  const second = parseChangeNotification(out[1]!.body.toString('utf8'));
  assert.equal(first.from.lexical, T(0));
  assert.equal(first.until.lexical, second.from.lexical, 'contiguous (RN-5)');
  assert.equal(second.until.lexical, T(9));
  assert.deepEqual(
    first.links.map((l) => [l.rel, l.href]),
    [['up', 'http://src.example/cl.xml']],
    'RN-6',
  );
  assert.match(out[0]!.linkHeader, /<http:\/\/hub\.example\/hub\/bridge\/s>; rel="self"/);
  assert.match(out[0]!.linkHeader, /<http:\/\/hub\.example\/hub>; rel="hub"/);
});

test('schedule: once per interval start to start; backoff doubles on failures; Retry-After is never undercut', () => {
  assert.equal(
    nextPollAt({ now: 1_200, startedAt: 1_000, intervalMs: 1_000, failures: 0, random: 0.5 }),
    2_000,
  );
  assert.equal(
    nextPollAt({ now: 2_500, startedAt: 1_000, intervalMs: 1_000, failures: 0, random: 0.5 }),
    2_500,
    'a poll that overran starts the next at once',
  );
  assert.equal(
    nextPollAt({ now: 1_000, startedAt: 1_000, intervalMs: 1_000, failures: 1, random: 1 }),
    3_000,
  );
  assert.equal(
    nextPollAt({ now: 1_000, startedAt: 1_000, intervalMs: 1_000, failures: 3, random: 1 }),
    9_000,
  );
  assert.equal(
    nextPollAt({ now: 1_000, startedAt: 1_000, intervalMs: 1_000, failures: 30, random: 1 }),
    1_000 + 15 * 60_000,
    'capped',
  );
  assert.equal(
    nextPollAt({
      now: 1_000,
      startedAt: 1_000,
      intervalMs: 1_000,
      failures: 0,
      notBefore: 60_000,
      random: 0,
    }),
    60_000,
  );
});
