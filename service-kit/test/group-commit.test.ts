// The group-commit helper, with a manual flush tick in place of the event loop: what one batch
// holds, that callers are answered only after their commit, and that a bad item fails alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GroupCommit, type FlushScheduler } from '../src/index.js';

class ClosedError extends Error {}

/** A scheduler that runs nothing until the test ticks it. */
function manualTick(): { schedule: FlushScheduler; tick(): void; scheduled(): number } {
  let due: (() => void)[] = [];
  return {
    schedule: (flush) => {
      due.push(flush);
    },
    tick() {
      const now = due;
      due = [];
      for (const f of now) f();
    },
    scheduled: () => due.length,
  };
}

/** A fake transactional store: a batch commits whole or not at all. */
function store(bad: (item: string) => boolean = () => false) {
  const committed: string[][] = [];
  const commit = (batch: readonly string[]): number[] => {
    if (batch.some(bad)) throw new RangeError(`bad item in ${batch.join(',')}`);
    committed.push([...batch]);
    return batch.map((item) => item.length);
  };
  return { committed, commit };
}

const flushed = () => new Promise<void>((r) => setImmediate(r));

test('group commit: writes submitted before one tick share one transaction, in arrival order', async () => {
  const clock = manualTick();
  const s = store();
  const group = new GroupCommit({
    commit: s.commit,
    schedule: clock.schedule,
    closedError: () => new ClosedError(),
  });
  const answered: number[] = [];
  const writes = ['a', 'bb', 'ccc'].map((w) => group.submit(w).then((r) => answered.push(r)));
  assert.equal(clock.scheduled(), 1, 'one flush scheduled for the whole burst');
  await flushed();
  assert.deepEqual(answered, [], 'nobody is answered before the commit');
  assert.deepEqual(s.committed, []);
  clock.tick();
  await Promise.all(writes);
  assert.deepEqual(s.committed, [['a', 'bb', 'ccc']]);
  assert.deepEqual(answered, [1, 2, 3]);
  // The next write starts a new batch with a new tick.
  const later = group.submit('dddd');
  assert.equal(group.pending, 1);
  clock.tick();
  assert.equal(await later, 4);
  assert.deepEqual(s.committed, [['a', 'bb', 'ccc'], ['dddd']]);
});

test('group commit: a failing item is isolated; its neighbours commit one by one', async () => {
  const clock = manualTick();
  const s = store((item) => item === 'bad');
  const group = new GroupCommit({
    commit: s.commit,
    schedule: clock.schedule,
    closedError: () => new ClosedError(),
  });
  const results = ['x', 'bad', 'yy'].map((w) => group.submit(w));
  clock.tick();
  const settled = await Promise.allSettled(results);
  assert.deepEqual(
    settled.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  assert.ok(settled[1]!.status === 'rejected' && settled[1].reason instanceof RangeError);
  assert.deepEqual(s.committed, [['x'], ['yy']]);
});

test('group commit: close writes what is queued, then refuses with the store error', async () => {
  const clock = manualTick();
  const s = store();
  const group = new GroupCommit({
    commit: s.commit,
    schedule: clock.schedule,
    closedError: () => new ClosedError('store closed'),
  });
  const queued = group.submit('q');
  group.close();
  assert.equal(await queued, 1);
  assert.deepEqual(s.committed, [['q']]);
  await assert.rejects(group.submit('late'), ClosedError);
  clock.tick(); // the stale tick finds nothing to write
  assert.deepEqual(s.committed, [['q']]);
});

test('group commit: the default scheduler flushes on the next turn of the event loop', async () => {
  const s = store();
  const group = new GroupCommit({ commit: s.commit, closedError: () => new ClosedError() });
  const both = Promise.all([group.submit('a'), group.submit('b')]);
  assert.deepEqual(await both, [1, 1]);
  assert.deepEqual(s.committed, [['a', 'b']]);
});

/** A group commit whose plain and deferred flushes each wait for a manual tick of their own. */
function withDeferredTick() {
  const urgent = manualTick();
  const later = manualTick();
  const s = store();
  const group = new GroupCommit({
    commit: s.commit,
    schedule: urgent.schedule,
    deferredSchedule: later.schedule,
    closedError: () => new ClosedError(),
  });
  return { urgent, later, s, group };
}

test('group commit: deferred writes wait for their own tick, and meanwhile share one transaction', async () => {
  const { urgent, later, s, group } = withDeferredTick();
  const first = group.submit('a', true);
  await flushed();
  const second = group.submit('bb', true);
  assert.equal(later.scheduled(), 1, 'one deferred flush for the whole batch');
  assert.equal(urgent.scheduled(), 0, 'a deferred write asks for no early flush');
  urgent.tick();
  await flushed();
  assert.deepEqual(s.committed, [], 'nothing commits before the deferred tick');
  later.tick();
  assert.deepEqual(await Promise.all([first, second]), [1, 2]);
  assert.deepEqual(s.committed, [['a', 'bb']]);
});

test('group commit: a write that is not deferred takes the deferred ones along, in order', async () => {
  const { urgent, later, s, group } = withDeferredTick();
  const deferred = group.submit('a', true);
  const now = group.submit('bb');
  const deferredAfter = group.submit('ccc', true);
  assert.equal(urgent.scheduled(), 1);
  urgent.tick();
  assert.deepEqual(await Promise.all([deferred, now, deferredAfter]), [1, 2, 3]);
  assert.deepEqual(s.committed, [['a', 'bb', 'ccc']], 'one transaction, submission order');
  // The deferred tick that was already scheduled finds nothing left to write.
  later.tick();
  assert.deepEqual(s.committed, [['a', 'bb', 'ccc']]);
  // A deferred write submitted after that tick gets a tick of its own.
  const last = group.submit('dddd', true);
  assert.equal(later.scheduled(), 1);
  later.tick();
  assert.equal(await last, 4);
  assert.deepEqual(s.committed, [['a', 'bb', 'ccc'], ['dddd']]);
});
