// The coverage rule and failure policy as plain functions (RC-21..RC-25, RN-5): what interval a
// document proves, whether it continues what is covered, which entries are new, what failures remain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDateTime, type Change, type DateTime } from '@rsnotify/shared';
import {
  classifyFailure,
  EntrySelector,
  holdsPosition,
  joinsCoverage,
  provenInterval,
  remainingFailures,
  type FailureKind,
  type ListFacts,
} from '../src/catchup/index.js';

const T = (sec: number): DateTime =>
  parseDateTime(`2026-01-01T00:00:${String(sec).padStart(2, '0')}Z`);
const key = (d: DateTime | undefined): string | undefined => d?.lexical;

test('RC-21/RC-22: the interval a Change List proves', () => {
  const rows: { name: string; list: ListFacts; start?: string; by: string; end?: string }[] = [
    {
      name: 'closed list: from..until',
      list: { from: T(10), until: T(50), earliestEntry: T(12), latestEntry: T(40) },
      start: key(T(10)),
      by: 'from',
      end: key(T(50)),
    },
    {
      name: 'open list: up to its newest entry',
      list: { from: T(10), latestEntry: T(40) },
      start: key(T(10)),
      by: 'from',
      end: key(T(40)),
    },
    {
      name: 'open list: up to the time it was read when later (RC-22)',
      list: { from: T(10), latestEntry: T(40), readAt: T(45) },
      start: key(T(10)),
      by: 'from',
      end: key(T(45)),
    },
    {
      name: 'no from: only from its earliest entry on',
      list: { until: T(50), earliestEntry: T(20), latestEntry: T(40) },
      start: key(T(20)),
      by: 'earliest-entry',
      end: key(T(50)),
    },
    {
      name: 'no from, no timed entry: no start proven',
      list: { until: T(50) },
      by: 'nothing',
      end: key(T(50)),
    },
    {
      name: 'open, empty, unread time: no end proven',
      list: { from: T(10) },
      start: key(T(10)),
      by: 'from',
    },
  ];
  for (const row of rows) {
    const p = provenInterval(row.list);
    assert.equal(key(p.start), row.start, row.name);
    assert.equal(p.startProvenBy, row.by, row.name);
    assert.equal(key(p.end), row.end, row.name);
  }
});

test('RC-24/RN-5: a list continues coverage only when its proven start reaches the position', () => {
  const rows: {
    name: string;
    reach: DateTime;
    list: ListFacts;
    joins: boolean;
    reason?: string;
  }[] = [
    { name: 'from before the position', reach: T(30), list: { from: T(10) }, joins: true },
    {
      name: 'from exactly at the position (RC-25 boundary)',
      reach: T(30),
      list: { from: T(30) },
      joins: true,
    },
    {
      name: 'from after the position: history gone',
      reach: T(30),
      list: { from: T(31) },
      joins: false,
      reason: 'from-after-position',
    },
    {
      name: 'no from, earliest entry before the position: no needless re-baseline',
      reach: T(30),
      list: { earliestEntry: T(5) },
      joins: true,
    },
    {
      name: 'no from, earliest entry after the position: history cut short',
      reach: T(30),
      list: { earliestEntry: T(40) },
      joins: false,
      reason: 'no-from',
    },
    {
      name: 'no from, no timed entry: unproven',
      reach: T(30),
      list: {},
      joins: false,
      reason: 'no-from',
    },
  ];
  for (const row of rows) {
    const d = joinsCoverage(row.reach, provenInterval(row.list));
    assert.equal(d.joins, row.joins, row.name);
    if (!d.joins) assert.equal(d.reason, row.reason, row.name);
  }
});

function select(
  after: DateTime,
  to: DateTime | undefined,
  allNew: boolean,
  entries: Change[],
): string[] {
  const s = new EntrySelector(after, to, allNew);
  const out: Change[] = [];
  for (const e of entries) out.push(...s.push(e));
  out.push(...s.end());
  return out.map((c) => `${c.change} ${c.uri}`);
}

const ch = (uri: string, change: Change['change'], time?: DateTime): Change => ({
  uri,
  change,
  ...(time ? { time } : {}),
});

test('RC-23: document order governs which entries are new, not lastmod', () => {
  const rows: {
    name: string;
    after: DateTime;
    to?: DateTime;
    allNew: boolean;
    entries: Change[];
    want: string[];
  }[] = [
    {
      name: 'a timeless delete behind a new entry is new',
      after: T(20),
      allNew: false,
      entries: [ch('/a', 'updated', T(10)), ch('/b', 'updated', T(25)), ch('/gone', 'deleted')],
      want: ['updated /b', 'deleted /gone'],
    },
    {
      name: 'timeless entries before an old entry are old',
      after: T(20),
      allNew: false,
      entries: [ch('/x', 'deleted'), ch('/a', 'updated', T(10)), ch('/b', 'updated', T(25))],
      want: ['updated /b'],
    },
    {
      name: 'timeless entries between the last old and the first new entry are new',
      after: T(20),
      allNew: false,
      entries: [ch('/a', 'updated', T(10)), ch('/x', 'deleted'), ch('/b', 'updated', T(25))],
      want: ['deleted /x', 'updated /b'],
    },
    {
      name: 'an entry listed after a new one is new even with an earlier time',
      after: T(20),
      allNew: false,
      entries: [ch('/b', 'updated', T(25)), ch('/c', 'updated', T(15))],
      want: ['updated /b', 'updated /c'],
    },
    {
      name: 'a list starting at or after the position: every entry is new',
      after: T(20),
      allNew: true,
      entries: [ch('/gone', 'deleted'), ch('/a', 'updated', T(5))],
      want: ['deleted /gone', 'updated /a'],
    },
    {
      name: 'timeless entries at the end, after old ones: new (never guess old)',
      after: T(20),
      allNew: false,
      entries: [ch('/a', 'updated', T(10)), ch('/gone', 'deleted')],
      want: ['deleted /gone'],
    },
    {
      name: 'an entry after `to` ends the selection, timeless ones before it kept',
      after: T(20),
      to: T(30),
      allNew: false,
      entries: [
        ch('/b', 'updated', T(25)),
        ch('/x', 'deleted'),
        ch('/c', 'updated', T(35)),
        ch('/d', 'deleted'),
      ],
      want: ['updated /b', 'deleted /x'],
    },
  ];
  for (const row of rows)
    assert.deepEqual(select(row.after, row.to, row.allNew, row.entries), row.want, row.name);
});

test('failure policy: one classification for every path (refused, gone 404 and 410, mismatch, blocking)', () => {
  const rows: { error: { code: string; status?: number }; kind: FailureKind; holds: boolean }[] = [
    { error: { code: 'RSN_PATH_ESCAPE' }, kind: 'refused', holds: false },
    { error: { code: 'RSN_PATH_UNMAPPABLE' }, kind: 'refused', holds: false },
    { error: { code: 'RSN_HTTP_STATUS', status: 404 }, kind: 'gone', holds: false },
    { error: { code: 'RSN_HTTP_STATUS', status: 410 }, kind: 'gone', holds: false },
    { error: { code: 'RSN_HTTP_STATUS', status: 500 }, kind: 'blocking', holds: true },
    { error: { code: 'RSN_HASH_MISMATCH' }, kind: 'mismatch', holds: true },
    { error: { code: 'RSN_LENGTH_MISMATCH' }, kind: 'mismatch', holds: true },
    { error: { code: 'RSN_WRITE_FAILED' }, kind: 'blocking', holds: true },
  ];
  for (const row of rows) {
    assert.equal(classifyFailure(row.error), row.kind, JSON.stringify(row.error));
    assert.equal(holdsPosition(row.kind), row.holds, row.kind);
  }
});

test('RC-23: what remains of the failures given the later changes known', () => {
  const failures = [
    { uri: '/m', time: T(10), kind: 'mismatch' as const },
    { uri: '/n', time: T(10), kind: 'mismatch' as const },
    { uri: '/g', time: T(10), kind: 'gone' as const },
    { uri: '/w', time: T(10), kind: 'blocking' as const },
    { uri: '/t', kind: 'mismatch' as const },
  ];
  const later = [
    { uri: '/m', time: T(12) }, // later in time: explains it
    { uri: '/n', time: T(9) }, // earlier: does not
    { uri: '/g' }, // timeless: later by document order
    { uri: '/w', time: T(20) }, // a write failure is never explained away
    { uri: '/t', time: T(1) }, // the failed change had no time: the later listed one wins
  ];
  assert.deepEqual(
    remainingFailures(failures, later).map((f) => f.uri),
    ['/n', '/w'],
  );
});
