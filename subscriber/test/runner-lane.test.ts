// The runner's lane: steps one at a time, in order; writes a step trails (submitted, not awaited)
// let the next step start, and settled() still waits for them (tests and shutdown rely on it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { logLines } from '@rsnotify/service-kit/testing';
import { createLogger } from '../src/observability/index.js';
import { Lane } from '../src/runner/context.js';

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

test('lane: a step that trails its writes lets the next step run; settled() waits for the writes', async () => {
  const log = logLines();
  const lane = new Lane(createLogger('info', log.sink), () => false);
  const order: string[] = [];
  const write = deferred();
  lane.enqueue(async () => {
    order.push('step 1');
    lane.trail(write.promise.then(() => order.push('write 1 committed')));
  });
  const step2 = deferred();
  lane.enqueue(async () => {
    order.push('step 2');
    step2.resolve();
  });
  let settled = false;
  const done = lane.settled().then(() => (settled = true));
  await step2.promise;
  assert.deepEqual(order, ['step 1', 'step 2'], 'step 2 did not wait for step 1 writes');
  assert.equal(settled, false, 'settled() waits for the trailing write');
  write.resolve();
  await done;
  assert.deepEqual(order, ['step 1', 'step 2', 'write 1 committed']);
  assert.deepEqual(log.of('runner.error'), []);
});

test('lane: a step queued behind another starts on a turn of the event loop of its own, so waiting I/O goes first', async () => {
  const lane = new Lane(createLogger('info', logLines().sink), () => false);
  const order: string[] = [];
  lane.enqueue(async () => {
    order.push('step 1');
    // Stands for a request that arrived while step 1 ran (its callback is queued on the loop).
    setImmediate(() => order.push('request'));
  });
  lane.enqueue(async () => {
    order.push('step 2');
  });
  await lane.settled();
  assert.deepEqual(order, ['step 1', 'request', 'step 2']);
});

test('lane: a step given to an idle lane starts at once, before the next turn of the event loop', async () => {
  const lane = new Lane(createLogger('info', logLines().sink), () => false);
  const order: string[] = [];
  const nextTurn = () => new Promise((r) => setImmediate(r));
  for (const round of [1, 2]) {
    // Stands for a request already waiting on the loop when the step is given.
    setImmediate(() => order.push(`request ${round}`));
    lane.enqueue(async () => {
      order.push(`step ${round}`);
    });
    await lane.settled();
    await nextTurn();
  }
  // Round 2 finds the lane idle again after round 1's step.
  assert.deepEqual(order, ['step 1', 'request 1', 'step 2', 'request 2']);
});

test('lane: onIdle is told once the last queued step has finished with writes still committing', async () => {
  let idle = 0;
  const lane = new Lane(
    createLogger('info', logLines().sink),
    () => false,
    'runner.error',
    () => {
      idle++;
    },
  );
  const writes = [deferred(), deferred()];
  const step2 = deferred();
  let idleAfterStep1 = -1;
  lane.enqueue(async () => {
    lane.trail(writes[0]!.promise);
  });
  lane.enqueue(async () => {
    idleAfterStep1 = idle; // step 2 was queued when step 1 ended: company was coming
    lane.trail(writes[1]!.promise);
    step2.resolve();
  });
  await step2.promise;
  await new Promise((r) => setImmediate(r)); // the lane's bookkeeping after the step
  assert.equal(idleAfterStep1, 0);
  assert.equal(idle, 1, 'told once, after the last step, while both writes wait');
  for (const w of writes) w.resolve();
  await lane.settled();
  // A step that trails nothing leaves nothing to commit: not told.
  lane.enqueue(async () => undefined);
  await lane.settled();
  assert.equal(idle, 1);
});

test('lane: a trailing write that fails is logged as runner.error and does not stop the lane', async () => {
  const log = logLines();
  const lane = new Lane(createLogger('info', log.sink), () => false);
  let ran = false;
  lane.enqueue(async () => {
    lane.trail(Promise.reject(new Error('disk full')));
  });
  lane.enqueue(async () => {
    ran = true;
  });
  await lane.settled();
  assert.equal(ran, true);
  const errors = log.of('runner.error');
  assert.equal(errors.length, 1);
  assert.equal(errors[0]!.error, 'disk full');
});

test('lane: settled() is the same promise until something more is enqueued or trailed', () => {
  const lane = new Lane(createLogger('silent'), () => false);
  const first = lane.settled();
  assert.equal(lane.settled(), first);
  lane.trail(Promise.resolve());
  const second = lane.settled();
  assert.notEqual(second, first);
  assert.equal(lane.settled(), second);
  lane.enqueue(async () => undefined);
  assert.notEqual(lane.settled(), second);
});
