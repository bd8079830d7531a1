// The contiguity engine (RN-5, M-7), property-style: random delivery orders, duplicates and losses
// always end at the last until with every interval applied once; and the buffer is persistent (an
// old state stays valid after later transitions) whatever order notifications come in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareDateTime } from '@rsnotify/shared';
import {
  applied,
  catchUpFailed,
  caughtUp,
  initialOrderingState,
  receive,
  tick,
  type OrderingEffect,
  type OrderingState,
} from '../src/ordering/index.js';
import { BASE, opts, pos, t } from './ordering-helpers.js';

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
