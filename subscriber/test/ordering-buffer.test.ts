// The ordering engine's buffer is persistent: every transition returns a new buffer and an old one
// never changes, whether the next notification sorts last (appended to the shared store), out of
// order (copied), or the head is dropped (a moved start). The engine relies on it: it is pure, and a
// caller may keep an old state. Also a backlog behind a gap (M-7) drains in order, completely.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  caughtUp,
  initialOrderingState,
  NotificationBuffer,
  receive,
  applied,
  type OrderingEffect,
} from '../src/ordering/index.js';
import { N, opts, pos, t } from './ordering-helpers.js';

const ids = (b: NotificationBuffer): number[] => b.map((n) => n.id);

test('buffer: an append past a shared store leaves every older buffer as it was', () => {
  const a = NotificationBuffer.empty()
    .inserted(N(1, 0, 10))
    .inserted(N(2, 10, 20));
  const b = a.inserted(N(3, 20, 30)); // appended to the store a shares
  const c = a.inserted(N(4, 30, 40)); // a no longer ends at the store's end: copied
  const d = a.withoutHead().inserted(N(5, 40, 50));
  assert.deepEqual(ids(a), [1, 2]);
  assert.deepEqual(ids(b), [1, 2, 3]);
  assert.deepEqual(ids(c), [1, 2, 4]);
  assert.deepEqual(ids(d), [2, 5]);
  assert.equal(a.length, 2);
  assert.equal(a.head()?.id, 1);
  assert.equal(d.at(1)?.id, 5);
  assert.equal(d.at(2), undefined);
});

test('buffer: an out-of-order arrival takes its sorted place (from, then until, then id)', () => {
  let b = NotificationBuffer.empty();
  for (const n of [N(3, 20, 30), N(1, 0, 10), N(4, 20, 25), N(2, 10, 20), N(5, 20, 25)])
    b = b.inserted(n);
  assert.deepEqual(ids(b), [1, 2, 4, 5, 3]);
  assert.deepEqual(
    b.withInterval(t(20), t(25)).map((n) => n.id),
    [4, 5],
  );
  assert.deepEqual(b.withInterval(t(20), t(26)), []);
  assert.deepEqual(ids(NotificationBuffer.of(b.toArray().reverse())), [1, 2, 4, 5, 3]);
});

test('buffer: dropping heads past the compaction point keeps contents and older buffers intact', () => {
  let b = NotificationBuffer.empty();
  for (let i = 0; i < 5_000; i++) b = b.inserted(N(i, i * 10, i * 10 + 10));
  const full = b;
  for (let i = 0; i < 4_000; i++) b = b.withoutHead();
  assert.equal(b.length, 1_000);
  assert.equal(b.head()?.id, 4_000);
  b = b.inserted(N(99_999, 50_000, 50_010));
  assert.equal(b.length, 1_001);
  assert.equal(b.at(1_000)?.id, 99_999);
  assert.equal(full.length, 5_000);
  assert.deepEqual(
    [...full].slice(-2).map((n) => n.id),
    [4_998, 4_999],
  );
});

test('M-7: a backlog of 5,000 notifications behind a gap drains in order after the catch-up', () => {
  let s = initialOrderingState(t(0));
  const effects: OrderingEffect[] = [];
  for (let i = 1; i <= 5_000; i++) {
    const out = receive(s, N(i, i * 10, i * 10 + 10), 0, opts);
    s = out.state;
    effects.push(...out.effects);
  }
  assert.equal(s.buffer.length, 5_000);
  assert.deepEqual(
    effects.map((e) => e.kind),
    ['gap-detected'],
  );
  // A redelivery of a buffered interval deep in the backlog is found (binary search), not re-buffered.
  const dup = receive(s, N(9_999_999, 25_000, 25_010), 0, opts);
  assert.deepEqual(dup.effects, [{ kind: 'supersede', id: 9_999_999, reason: 'duplicate' }]);
  assert.equal(receive(s, N(2_500, 25_000, 25_010), 0, opts).effects.length, 0);

  let out = caughtUp(s, t(10), 1, opts);
  const appliedIds: number[] = [];
  while (out.effects.length > 0) {
    const e = out.effects[0]!;
    assert.equal(e.kind, 'apply');
    if (e.kind !== 'apply') break;
    appliedIds.push(e.id);
    out = applied(out.state, e.id, 2, opts);
  }
  assert.equal(appliedIds.length, 5_000);
  assert.ok(appliedIds.every((id, i) => id === i + 1));
  assert.equal(pos(out.state), 50_010);
  assert.equal(out.state.buffer.length, 0);
});
