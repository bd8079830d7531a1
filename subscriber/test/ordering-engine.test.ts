// The contiguity engine (RN-5, M-7), table-driven: each row a sequence of transitions with the
// effects and position expected. Pure: no I/O, the clock is a number passed in. The property-style
// run over random delivery orders is in ordering-engine-property.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDateTime, type DateTime } from '@rsnotify/shared';
import {
  catchUpFailed,
  initialOrderingState,
  nextWakeAt,
  rebaselined,
  receive,
  tick,
  type PendingNotification,
} from '../src/ordering/index.js';
import { N, opts, pos, run, show, t, type Row } from './ordering-helpers.js';

const rows: Row[] = [
  {
    name: 'RN-5: an in-order stream applies each notification and moves the position to its until',
    start: 0,
    steps: [
      { receive: N(1, 0, 10) },
      { applied: 1 },
      { receive: N(2, 10, 20) },
      { applied: 2 },
      { receive: N(3, 20, 30) },
      { applied: 3 },
    ],
    effects: ['apply 1 after=- until=10', 'apply 2 after=- until=20', 'apply 3 after=- until=30'],
    syncedUntil: 30,
  },
  {
    name: 'RN-5: the position does not move while the apply is in flight',
    start: 0,
    steps: [{ receive: N(1, 0, 10) }],
    effects: ['apply 1 after=- until=10'],
    syncedUntil: 0,
  },
  {
    name: 'M-7: a reordered pair is buffered, then applied in from order once the missing one arrives',
    start: 0,
    steps: [{ receive: N(2, 10, 20) }, { receive: N(1, 0, 10) }, { applied: 1 }, { applied: 2 }],
    effects: ['gap 0..10', 'apply 1 after=- until=10', 'apply 2 after=- until=20'],
    syncedUntil: 20,
  },
  {
    name: 'M-7: a notification arriving during an apply waits in the buffer and is drained after it',
    start: 0,
    steps: [{ receive: N(1, 0, 10) }, { receive: N(2, 10, 20) }, { applied: 1 }, { applied: 2 }],
    effects: ['apply 1 after=- until=10', 'apply 2 after=- until=20'],
    syncedUntil: 20,
  },
  {
    name: 'M-7: a redelivered, already applied notification (until <= P) is superseded as covered',
    start: 0,
    steps: [{ receive: N(1, 0, 10) }, { applied: 1 }, { receive: N(5, 0, 10) }],
    effects: ['apply 1 after=- until=10', 'supersede 5 covered'],
    syncedUntil: 10,
  },
  {
    name: 'M-7: a duplicate of a buffered interval is superseded as duplicate',
    start: 0,
    steps: [{ receive: N(2, 10, 20) }, { receive: N(3, 10, 20) }],
    effects: ['gap 0..10', 'supersede 3 duplicate'],
    syncedUntil: 0,
    buffered: [2],
  },
  {
    name: 'M-7: the same inbox row received twice yields nothing new',
    start: 0,
    steps: [{ receive: N(2, 10, 20) }, { receive: N(2, 10, 20) }],
    effects: ['gap 0..10'],
    syncedUntil: 0,
    buffered: [2],
  },
  {
    name: 'M-7: a duplicate of the notification in flight is dropped as covered once it is applied',
    start: 0,
    steps: [{ receive: N(1, 0, 10) }, { receive: N(9, 0, 10) }, { applied: 1 }],
    effects: ['apply 1 after=- until=10', 'supersede 9 covered'],
    syncedUntil: 10,
  },
  {
    name: 'M-7: an interval inside the covered range (until < P) is superseded',
    start: 50,
    steps: [{ receive: N(1, 10, 20) }],
    effects: ['supersede 1 covered'],
    syncedUntil: 50,
  },
  {
    name: 'M-7: a partial overlap (from < P < until) applies only the entries after P',
    start: 15,
    steps: [{ receive: N(1, 10, 20) }, { applied: 1 }],
    effects: ['apply 1 after=15 until=20'],
    syncedUntil: 20,
  },
  {
    name: 'RN-11: a zero-length notification at P is applied (its entries lie at P), not dropped',
    start: 10,
    steps: [{ receive: N(1, 10, 10) }, { applied: 1 }],
    effects: ['apply 1 after=- until=10'],
    syncedUntil: 10,
  },
  {
    name: 'M-7: a gap is buffered, and after gapTimeout a catch-up fills [P, next from)',
    start: 0,
    steps: [{ receive: N(3, 20, 30), now: 100 }, { tick: 1_099 }, { tick: 1_100 }],
    effects: ['gap 0..20', 'catch-up 0..20'],
    syncedUntil: 0,
    buffered: [3],
  },
  {
    name: 'M-7: after a catch-up the buffer drains in order',
    start: 0,
    steps: [
      { receive: N(3, 20, 30), now: 0 },
      { receive: N(4, 30, 40), now: 0 },
      { tick: 1_000 },
      { caughtUp: 20, now: 1_200 },
      { applied: 3, now: 1_300 },
      { applied: 4, now: 1_400 },
    ],
    effects: [
      'gap 0..20',
      'catch-up 0..20',
      'apply 3 after=- until=30',
      'apply 4 after=- until=40',
    ],
    syncedUntil: 40,
  },
  {
    name: 'M-7: the missing notification arriving before the timeout closes the gap with no catch-up',
    start: 0,
    steps: [
      { receive: N(2, 10, 20), now: 0 },
      { receive: N(1, 0, 10), now: 500 },
      { applied: 1, now: 600 },
      { applied: 2, now: 700 },
      { tick: 5_000 },
    ],
    effects: ['gap 0..10', 'apply 1 after=- until=10', 'apply 2 after=- until=20'],
    syncedUntil: 20,
  },
  {
    name: 'M-7: a lagging Change List (caughtUp short of the gap) moves P part way, then retries after a backoff',
    start: 0,
    steps: [
      { receive: N(3, 20, 30), now: 0 },
      { tick: 1_000 },
      { caughtUp: 12, now: 1_100 },
      { tick: 1_599 },
      { tick: 1_600 },
      { caughtUp: 20, now: 1_700 },
      { applied: 3, now: 1_800 },
    ],
    effects: ['gap 0..20', 'catch-up 0..20', 'catch-up 12..20', 'apply 3 after=- until=30'],
    syncedUntil: 30,
  },
  {
    name: 'M-7: a failed catch-up is retried after a growing backoff, without moving P',
    start: 0,
    steps: [
      { receive: N(3, 20, 30), now: 0 },
      { tick: 1_000 },
      { catchUpFailed: true, now: 1_000 },
      { tick: 1_499 },
      { tick: 1_500 },
      { catchUpFailed: true, now: 1_500 },
      { tick: 2_499 },
      { tick: 2_500 },
    ],
    effects: ['gap 0..20', 'catch-up 0..20', 'catch-up 0..20', 'catch-up 0..20'],
    syncedUntil: 0,
  },
  {
    name: 'M-7: caughtUp never moves P past the requested end (nothing beyond it was applied)',
    start: 0,
    steps: [{ receive: N(3, 20, 30), now: 0 }, { tick: 1_000 }, { caughtUp: 25, now: 1_100 }],
    effects: ['gap 0..20', 'catch-up 0..20', 'apply 3 after=- until=30'],
    syncedUntil: 20,
  },
  {
    name: 'M-7: without a catch-up in flight (polling, sync command) caughtUp moves P to the covered point',
    start: 0,
    steps: [{ caughtUp: 40 }],
    effects: [],
    syncedUntil: 40,
  },
  {
    name: 'M-7: a catch-up covering a buffered notification partly leads to a partial apply',
    start: 0,
    steps: [
      { receive: N(3, 20, 30), now: 0 },
      { receive: N(4, 40, 50), now: 0 },
      { tick: 1_000 },
      { caughtUp: 20, now: 1_000 },
      { applied: 3, now: 1_000 },
    ],
    effects: ['gap 0..20', 'catch-up 0..20', 'apply 3 after=- until=30', 'gap 30..40'],
    syncedUntil: 30,
    buffered: [4],
  },
  {
    name: 'M-7: without a position the first notification starts it at its from',
    steps: [{ receive: N(7, 100, 110) }, { applied: 7 }],
    effects: ['apply 7 after=- until=110'],
    syncedUntil: 110,
  },
  {
    name: 'M-7: without a position, later notifications wait for the first apply',
    steps: [
      { receive: N(7, 100, 110) },
      { receive: N(8, 110, 120) },
      { applied: 7 },
      { applied: 8 },
    ],
    effects: ['apply 7 after=- until=110', 'apply 8 after=- until=120'],
    syncedUntil: 120,
  },
  {
    name: 'M-7: applied() for another id than the one in flight changes nothing',
    start: 0,
    steps: [{ receive: N(1, 0, 10) }, { applied: 99 }],
    effects: ['apply 1 after=- until=10'],
    syncedUntil: 0,
  },
  {
    name: 'RN-5: exact microsecond comparison: a from one µs after P is a gap, not contiguous',
    start: 10,
    steps: [{ receive: N(1, 11, 20) }],
    effects: ['gap 10..11'],
    syncedUntil: 10,
    buffered: [1],
  },
];

for (const row of rows) {
  test(row.name, () => {
    const { state, effects } = run(row);
    assert.deepEqual(effects, row.effects);
    assert.equal(pos(state), row.syncedUntil);
    if (row.buffered)
      assert.deepEqual(
        state.buffer.map((b) => b.id),
        row.buffered,
      );
  });
}

test('RN-5: contiguity compares instants exactly across lexical forms (offset vs Z, trailing zeros)', () => {
  const p = parseDateTime('2026-01-01T10:00:00.500000Z');
  const n: PendingNotification = {
    id: 1,
    from: parseDateTime('2026-01-01T11:00:00.5+01:00'),
    until: parseDateTime('2026-01-01T10:00:01Z'),
    receivedAt: 0,
  };
  const out = receive(initialOrderingState(p), n, 0, opts);
  assert.deepEqual(
    out.effects.map((e) => e.kind),
    ['apply'],
  );
  assert.equal((out.effects[0] as { after?: DateTime }).after, undefined);
});

test('M-7: rebaselined() sets the position at the baseline and drains what it covers', () => {
  let s = initialOrderingState(t(0));
  s = receive(s, N(2, 20, 30), 0, opts).state;
  s = receive(s, N(3, 30, 40), 0, opts).state;
  s = tick(s, 1_000, opts).state; // a catch-up is in flight
  const out = rebaselined(s, t(35), 1_100, opts);
  assert.deepEqual(show(out.effects), ['supersede 2 covered', 'apply 3 after=35 until=40']);
  assert.equal(pos(out.state), 35);
});

test('M-7: nextWakeAt tells the shell when the gap timeout or the backoff ends', () => {
  let s = initialOrderingState(t(0));
  assert.equal(nextWakeAt(s, opts), undefined);
  s = receive(s, N(2, 20, 30), 100, opts).state;
  assert.equal(nextWakeAt(s, opts), 1_100);
  s = tick(s, 1_100, opts).state;
  assert.equal(nextWakeAt(s, opts), undefined); // catch-up in flight
  s = catchUpFailed(s, 1_200, opts).state;
  assert.equal(nextWakeAt(s, opts), 1_700);
});
