// The contiguity engine (RN-5, M-7), table-driven, plus a property-style run over random delivery
// orders. Pure: no I/O, the clock is a number passed in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compareDateTime,
  dateTimeFromMicros,
  parseDateTime,
  type DateTime,
} from '@rsnotify/shared';
import {
  applied,
  catchUpFailed,
  caughtUp,
  initialOrderingState,
  nextWakeAt,
  rebaselined,
  receive,
  tick,
  type OrderingEffect,
  type OrderingOptions,
  type OrderingState,
  type PendingNotification,
} from '../src/ordering/index.js';

const BASE = 1_800_000_000_000_000n; // µs
const t = (n: number): DateTime => dateTimeFromMicros(BASE + BigInt(n));
const opts: OrderingOptions = {
  gapTimeoutMs: 1_000,
  catchUpRetryBaseMs: 500,
  catchUpRetryMaxMs: 4_000,
};
const N = (id: number, from: number, until: number): PendingNotification => ({
  id,
  from: t(from),
  until: t(until),
  receivedAt: 0,
});

/** Effects with datetimes replaced by their offsets, for readable expectations. */
function show(effects: readonly OrderingEffect[]): string[] {
  const off = (d: DateTime | undefined): string =>
    d === undefined ? '-' : String(Number(BigInt(Math.round(d.epochMs * 1000)) - BASE));
  return effects.map((e) => {
    switch (e.kind) {
      case 'apply':
        return `apply ${e.id} after=${off(e.after)} until=${off(e.until)}`;
      case 'supersede':
        return `supersede ${e.id} ${e.reason}`;
      case 'catch-up':
        return `catch-up ${off(e.from)}..${off(e.to)}`;
      case 'gap-detected':
        return `gap ${off(e.from)}..${off(e.to)}`;
    }
  });
}

const pos = (s: OrderingState): number | undefined =>
  s.syncedUntil === undefined
    ? undefined
    : Number(BigInt(Math.round(s.syncedUntil.epochMs * 1000)) - BASE);

type Step =
  | { receive: PendingNotification; now?: number }
  | { applied: number; now?: number }
  | { caughtUp: number; now?: number }
  | { catchUpFailed: true; now?: number }
  | { tick: number };

interface Row {
  name: string;
  start?: number;
  steps: Step[];
  effects: string[];
  syncedUntil: number | undefined;
  buffered?: number[];
}

function run(row: Row): {
  state: OrderingState;
  effects: string[];
  positions: (number | undefined)[];
} {
  let state = initialOrderingState(row.start === undefined ? undefined : t(row.start));
  const effects: string[] = [];
  const positions: (number | undefined)[] = [];
  for (const step of row.steps) {
    const before = pos(state);
    let out;
    let kind: string;
    if ('receive' in step) {
      out = receive(state, step.receive, step.now ?? 0, opts);
      kind = 'receive';
    } else if ('applied' in step) {
      out = applied(state, step.applied, step.now ?? 0, opts);
      kind = 'applied';
    } else if ('caughtUp' in step) {
      out = caughtUp(state, t(step.caughtUp), step.now ?? 0, opts);
      kind = 'caughtUp';
    } else if ('catchUpFailed' in step) {
      out = catchUpFailed(state, step.now ?? 0, opts);
      kind = 'catchUpFailed';
    } else {
      out = tick(state, step.tick, opts);
      kind = 'tick';
    }
    state = out.state;
    effects.push(...show(out.effects));
    // Promise 3: only applied() and caughtUp() move the position.
    if (kind !== 'applied' && kind !== 'caughtUp')
      assert.equal(pos(state), before, `${kind} moved syncedUntil`);
    positions.push(pos(state));
  }
  return { state, effects, positions };
}

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

// ---- property-style: a contiguous sequence, randomly permuted, duplicated and partly dropped ----

function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x1_0000_0000;
  };
}

test('RN-5/M-7 property: any permutation, duplication and loss ends at the last until, each interval applied once or superseded', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const rand = rng(seed);
    const count = 1 + Math.floor(rand() * 25);
    // Contiguous intervals with uneven lengths (µs).
    const bounds = [0];
    for (let i = 0; i < count; i++) bounds.push(bounds[i]! + 1 + Math.floor(rand() * 50));
    const intervals = bounds.slice(0, -1).map((from, i) => ({ from, until: bounds[i + 1]! }));
    // Deliveries: each interval 0..3 times (0 = lost), then shuffled.
    const deliveries: { interval: number; id: number }[] = [];
    let nextId = 1;
    intervals.forEach((_, i) => {
      const copies = rand() < 0.2 ? 0 : 1 + (rand() < 0.25 ? 1 + Math.floor(rand() * 2) : 0);
      for (let c = 0; c < copies; c++) deliveries.push({ interval: i, id: nextId++ });
    });
    for (let i = deliveries.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [deliveries[i], deliveries[j]] = [deliveries[j]!, deliveries[i]!];
    }
    const last = intervals[intervals.length - 1]!;
    // The Source's Change List: the last interval is always delivered eventually (the Source posts it
    // again in the simulation) so the stream has a known end; catch-ups read the truth from `applyLog`.
    if (!deliveries.some((d) => d.interval === intervals.length - 1))
      deliveries.push({ interval: intervals.length - 1, id: nextId++ });

    const byId = new Map(deliveries.map((d) => [d.id, intervals[d.interval]!]));
    const covered: { from: number; until: number; by: string }[] = []; // what was applied
    const outcome = new Map<number, string>();
    let state = initialOrderingState(t(0));
    let now = 0;
    const pending: OrderingEffect[] = [];
    const step = (out: { state: OrderingState; effects: OrderingEffect[] }): void => {
      state = out.state;
      pending.push(...out.effects);
    };
    const settle = (): void => {
      // Carry out effects one by one, as the shell would, and report back.
      while (pending.length > 0) {
        const e = pending.shift()!;
        if (e.kind === 'apply') {
          const iv = byId.get(e.id)!;
          const after =
            e.after === undefined
              ? iv.from
              : Number(BigInt(Math.round(e.after.epochMs * 1000)) - BASE);
          assert.ok(!outcome.has(e.id), `seed ${seed}: ${e.id} handled twice`);
          outcome.set(e.id, 'applied');
          if (after < iv.until) covered.push({ from: after, until: iv.until, by: `n${e.id}` });
          now += 1;
          step(applied(state, e.id, now, opts));
        } else if (e.kind === 'supersede') {
          assert.ok(!outcome.has(e.id), `seed ${seed}: ${e.id} handled twice`);
          outcome.set(e.id, e.reason);
        } else if (e.kind === 'catch-up') {
          const from = Number(BigInt(Math.round(e.from.epochMs * 1000)) - BASE);
          const to = Number(BigInt(Math.round(e.to.epochMs * 1000)) - BASE);
          assert.ok(from < to, `seed ${seed}: empty catch-up`);
          // Sometimes the list lags: it covers only part of the gap at first, or the fetch fails.
          const r = rand();
          if (r < 0.15) {
            now += 1;
            step(catchUpFailed(state, now, opts));
            continue;
          }
          const reach = r < 0.35 ? from + Math.max(1, Math.floor((to - from) / 2)) : to;
          covered.push({ from, until: reach, by: 'catch-up' });
          now += 1;
          step(caughtUp(state, t(reach), now, opts));
        }
      }
    };
    for (const d of deliveries) {
      now += Math.floor(rand() * 300);
      step(
        receive(
          state,
          {
            id: d.id,
            from: t(byId.get(d.id)!.from),
            until: t(byId.get(d.id)!.until),
            receivedAt: now,
          },
          now,
          opts,
        ),
      );
      settle();
    }
    // Time passes: timers fire until nothing is left to do.
    for (let i = 0; i < 200 && (state.buffer.length > 0 || state.applying); i++) {
      now += 5_000;
      step(tick(state, now, opts));
      settle();
    }
    assert.equal(pos(state), last.until, `seed ${seed}: ends at the last until`);
    assert.equal(state.buffer.length, 0, `seed ${seed}: buffer empty`);
    assert.equal(state.applying, undefined);
    for (const d of deliveries)
      assert.ok(
        outcome.has(d.id),
        `seed ${seed}: notification ${d.id} neither applied nor superseded`,
      );
    // What was applied covers [0, last.until) without overlap: every interval exactly once.
    covered.sort((a, b) => a.from - b.from);
    let cursor = 0;
    for (const c of covered) {
      assert.equal(
        c.from,
        cursor,
        `seed ${seed}: applied ranges are contiguous and disjoint (${c.by})`,
      );
      cursor = c.until;
    }
    assert.equal(cursor, last.until);
    assert.ok(compareDateTime(state.syncedUntil!, t(last.until)) === 0);
  }
});
