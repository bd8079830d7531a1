// OriginBudget as a unit: the per-origin active budget and the stall that frees it. Deliveries still
// unanswered after `slowAfterMs` stop holding the active budget (one timer serves every slot, armed
// for the oldest); released ones never stall. Real timers with a short slowAfterMs; what is asserted
// is the budget's state, never how long it took.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '@rsnotify/service-kit/testing';
import { DEFAULT_BREAKER_OPTIONS, OriginBudget } from '../src/delivery/index.js';

const DELIVERED = { kind: 'delivered', status: 200 } as const;

function budget(perOrigin: number, maxPerOrigin: number) {
  let rooms = 0;
  const b = new OriginBudget(
    {
      perOrigin,
      maxPerOrigin,
      global: 100,
      maxTotal: 400,
      slowAfterMs: 20,
      breaker: DEFAULT_BREAKER_OPTIONS,
    },
    { now: () => Date.now(), onBreakerChange: () => undefined, onRoom: () => rooms++ },
  );
  return { b, rooms: () => rooms };
}

test('origin budget: at most perOrigin active per origin; another origin has its own budget', (t) => {
  const { b } = budget(2, 4);
  t.after(() => b.close());
  const a1 = b.tryAcquire('http://a.test', false);
  const a2 = b.tryAcquire('http://a.test', false);
  assert.ok(a1 && a2);
  assert.equal(b.isFull('http://a.test'), true, 'isFull says what tryAcquire will answer');
  assert.equal(b.tryAcquire('http://a.test', false), undefined, 'third to origin a refused');
  assert.equal(b.isFull('http://b.test'), false, 'an origin never seen has room');
  assert.ok(b.tryAcquire('http://b.test', false), 'origin b unaffected');
  b.release(a1, DELIVERED);
  assert.equal(b.isFull('http://a.test'), false);
  assert.ok(b.tryAcquire('http://a.test', false), 'released slot gives room back');
  assert.equal(b.activeCount(), 3);
});

test('origin budget: unanswered deliveries stall in turn and free the active budget; released ones do not', async (t) => {
  const { b, rooms } = budget(2, 3);
  t.after(() => b.close());
  const first = b.tryAcquire('http://a.test', false)!;
  const second = b.tryAcquire('http://a.test', false)!;
  b.release(second, DELIVERED);
  await waitFor(() => first.stalled, { what: 'first slot stalled', timeoutMs: 10_000 });
  assert.equal(second.stalled, false, 'a released slot never stalls');
  assert.equal(b.activeCount(), 0, 'the stalled slot no longer counts as active');
  assert.ok(rooms() >= 2, 'room announced on release and on stall');
  // The stalled one still holds its connection: 1 stalled + 2 active reach maxPerOrigin (3).
  const third = b.tryAcquire('http://a.test', false)!;
  const fourth = b.tryAcquire('http://a.test', false)!;
  assert.ok(third && fourth);
  assert.equal(b.tryAcquire('http://a.test', false), undefined, 'maxPerOrigin counts stalled ones');
  await waitFor(() => third.stalled && fourth.stalled, {
    what: 'later slots stalled too',
    timeoutMs: 10_000,
  });
  b.release(first, DELIVERED);
  assert.ok(b.tryAcquire('http://a.test', false), 'a stalled slot released gives its place back');
});

test('origin budget: parked deliveries wake first parked first, one per freed slot; parking again keeps the place, unparked ones are skipped', (t) => {
  const { b } = budget(2, 4);
  t.after(() => b.close());
  const A = 'http://a.test';
  const held = [b.tryAcquire(A, false)!, b.tryAcquire(A, false)!];
  const woken: string[] = [];
  // Like the scheduler: a woken delivery takes the freed slot at once.
  const wake = (name: string) => () => {
    woken.push(name);
    held.push(b.tryAcquire(A, false)!);
  };
  for (const id of [1, 2, 3, 4]) b.park(A, id, wake(`${id}`));
  b.park(A, 2, wake('2 again')); // re-queued by a new notification: same place, latest wake
  b.unpark(A, 3); // its subscription went away
  b.release(held.shift()!, DELIVERED);
  assert.deepEqual(woken, ['1'], 'one slot freed, the first parked woken');
  b.release(held.shift()!, DELIVERED);
  assert.deepEqual(woken, ['1', '2 again'], 'then the second, with its latest wake');
  b.release(held.shift()!, DELIVERED);
  assert.deepEqual(woken, ['1', '2 again', '4'], 'the unparked one is skipped');
  assert.ok(held.every(Boolean), 'every woken delivery found its slot');
});
