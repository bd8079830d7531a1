// OriginBudget as a unit: the per-origin active budget and the stall that frees it. Deliveries still
// unanswered after `slowAfterMs` stop holding the active budget (one timer serves every slot, armed
// for the oldest); released ones never stall. Real timers with a short slowAfterMs; what is asserted
// is the budget's state, never how long it took.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '@rsnotify/service-kit/testing';
import { DEFAULT_BREAKER_OPTIONS, OriginBudget } from '../src/delivery/index.js';

const DELIVERED = { kind: 'delivered', status: 200 } as const;

interface Waiting {
  parked: boolean;
  readonly name: string;
}

function budget(perOrigin: number, maxPerOrigin: number, onWake: (w: Waiting) => void = () => {}) {
  let rooms = 0;
  const b = new OriginBudget<Waiting>(
    {
      perOrigin,
      maxPerOrigin,
      global: 100,
      maxTotal: 400,
      slowAfterMs: 20,
      breaker: DEFAULT_BREAKER_OPTIONS,
    },
    { now: () => Date.now(), onBreakerChange: () => undefined, onRoom: () => rooms++, onWake },
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
  const woken: string[] = [];
  const held: ReturnType<typeof b.tryAcquire>[] = [];
  // Like the scheduler: a woken delivery takes the freed slot at once.
  const { b } = budget(2, 4, (w) => {
    assert.equal(w.parked, false, 'a woken delivery is no longer parked');
    woken.push(w.name);
    held.push(b.tryAcquire(A, false));
  });
  t.after(() => b.close());
  const A = 'http://a.test';
  held.push(b.tryAcquire(A, false), b.tryAcquire(A, false));
  const [one, two, three, four, five] = ['1', '2', '3', '4', '5'].map((name) => ({
    parked: false,
    name,
  }));
  for (const w of [one!, two!, three!, four!]) b.park(A, w);
  assert.ok(
    [one, two, three, four].every((w) => w!.parked),
    'parking marks them parked',
  );
  b.park(A, one!); // parked again before its turn (a new notification): it keeps its one place
  b.unpark(A, three!); // its subscription went away
  assert.equal(three!.parked, false);
  b.release(held.shift()!, DELIVERED);
  assert.deepEqual(woken, ['1'], 'one slot freed, the first parked woken');
  b.park(A, five!);
  b.park(A, one!); // woken, delivered, and parked again: behind the fifth
  for (let i = 0; i < 4; i++) b.release(held.shift()!, DELIVERED);
  assert.deepEqual(
    woken,
    ['1', '2', '4', '5', '1'],
    'first parked first; the unparked one skipped',
  );
  b.release(held.shift()!, DELIVERED);
  assert.equal(woken.length, 5, 'nothing left parked to wake');
  assert.ok(held.every(Boolean), 'every woken delivery found its slot');
});
