// DeliveryScheduler as a unit, over fakes (scheduler-rig.ts): an in-memory store, a fake sender that
// answers what each test scripts, a manual clock. No sockets, no database: the scheduler's own
// decisions (order per subscription, retry with backoff, give-up, 410, the origin breaker) are what
// is asserted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelay } from '../src/delivery/index.js';
import {
  ok,
  refused,
  rig,
  serverError,
  startedWithOneSubscription,
  until,
} from './scheduler-rig.js';

test('M-3: each subscription gets its topic in publish order, one delivery in flight at a time', async (t) => {
  const r = rig({});
  t.after(() => r.scheduler.close(0));
  r.store.addTopic(1);
  r.store.addSubscription(1, 1, 'http://a.test/cb');
  r.store.addSubscription(2, 1, 'http://b.test/cb');
  await r.scheduler.start();
  for (let i = 0; i < 20; i++) r.publish(1);
  await until(() => r.sender.seqsTo('http://a.test/cb').length === 20, 'a.test got all 20');
  await until(() => r.sender.seqsTo('http://b.test/cb').length === 20, 'b.test got all 20');
  const inOrder = Array.from({ length: 20 }, (_, i) => i + 1);
  assert.deepEqual(r.sender.seqsTo('http://a.test/cb'), inOrder);
  assert.deepEqual(r.sender.seqsTo('http://b.test/cb'), inOrder);
  assert.equal(r.sender.maxInFlightPerCallback, 1, 'never two deliveries to one subscription');
  // The sender records a POST when it starts: wait for the last answers before writing the cursors.
  await until(() => r.scheduler.queueDepth() === 0, 'every delivery answered');
  await r.scheduler.flush();
  assert.equal(r.store.cursor(1)?.deliveredSeq, 20, 'the cursor is written');
  assert.equal(r.store.cursor(2)?.deliveredSeq, 20);
});

test('a subscription handed to another process (release) has its unsaved cursor written and is driven here no more', async (t) => {
  const r = rig({ flushDelayMs: 60_000 });
  t.after(() => r.scheduler.close(0));
  r.store.addTopic(1);
  r.store.addSubscription(1, 1, 'http://a.test/cb');
  r.store.addSubscription(2, 1, 'http://b.test/cb');
  await r.scheduler.start();
  for (let i = 0; i < 3; i++) r.publish(1);
  await until(() => r.scheduler.queueDepth() === 0, 'every delivery answered');
  assert.equal(r.store.batches.length, 0, 'no batch yet: the window is a minute');
  await r.scheduler.release(1);
  assert.equal(r.store.cursor(1)?.deliveredSeq, 3, 'its cursor is written at the hand-back');
  assert.deepEqual(r.scheduler.drivenIds(), [2]);
  r.publish(1);
  await until(() => r.sender.seqsTo('http://b.test/cb').length === 4, 'b.test got the 4th');
  assert.deepEqual(r.sender.seqsTo('http://a.test/cb'), [1, 2, 3], 'nothing more to a.test here');
});

test('the body cache keeps a notification until every subscription here has passed it', async (t) => {
  const r = rig({});
  t.after(() => r.scheduler.close(0));
  r.store.addTopic(1);
  r.store.addTopic(2);
  r.store.addSubscription(1, 1, 'http://a.test/cb');
  r.store.addSubscription(2, 1, 'http://b.test/cb');
  await r.scheduler.start();
  let bFails = true;
  r.sender.script((cb, seq) =>
    cb === 'http://b.test/cb' && seq === 1 && bFails ? serverError : ok,
  );
  for (let i = 0; i < 3; i++) r.publish(1);
  r.publish(2); // no subscription: nothing to keep it for
  await until(() => r.store.cursor(1)?.deliveredSeq === 3, 'a.test has all three');
  await until(() => r.store.cursor(2)?.attempts === 1, 'b.test failed once');
  assert.equal(r.cache.size, 3, 'b.test still has to be sent all three');
  assert.equal(r.cache.get(2, 1), undefined);
  bFails = false;
  r.advance(backoffDelay(1, r.retry, r.random));
  await until(() => r.store.cursor(2)?.deliveredSeq === 3, 'b.test has all three');
  assert.equal(r.cache.size, 0, 'passed by both: nothing left in memory');
  assert.equal(r.store.reads, 0, 'every delivery was sent from the cache');
});

test('WH-19, WH-20: a failed delivery is retried after the backoff, in order, and never before', async (t) => {
  const r = await startedWithOneSubscription(t);
  let failuresLeft = 2;
  r.sender.script((_cb, seq) => (seq === 1 && failuresLeft-- > 0 ? serverError : ok));
  r.publish(1);
  r.publish(1);
  const failedAt = r.now();
  await until(() => r.store.cursor(1)?.attempts === 1, 'first failure written');
  const first = r.store.cursor(1)!;
  assert.equal(first.deliveredSeq, 0);
  assert.equal(first.lastStatus, 500);
  assert.equal(first.nextAttemptAt, failedAt + backoffDelay(1, r.retry, r.random));

  // The clock has not moved: whatever real time passes, no retry and no overtaking by seq 2.
  await new Promise((res) => setTimeout(res, 100));
  assert.deepEqual(r.sender.seqsTo('http://a.test/cb'), [1]);

  r.advance(backoffDelay(1, r.retry, r.random));
  await until(() => r.store.cursor(1)?.attempts === 2, 'second failure written');
  const second = r.store.cursor(1)!;
  assert.equal(second.nextAttemptAt, r.now() + backoffDelay(2, r.retry, r.random));
  assert.ok(
    backoffDelay(2, r.retry, r.random) > backoffDelay(1, r.retry, r.random),
    'the backoff grows',
  );

  r.advance(backoffDelay(2, r.retry, r.random));
  await until(() => r.store.cursor(1)?.deliveredSeq === 2, 'both delivered');
  assert.deepEqual(r.sender.seqsTo('http://a.test/cb'), [1, 1, 1, 2]);
  assert.equal(r.store.cursor(1)!.attempts, 0, 'the retry state is reset');
});

test('promise 1: a notification failing for longer than the retry age is given up on record, and the cursor moves on', async (t) => {
  const r = await startedWithOneSubscription(t, {
    retry: { initialDelayMs: 10, maxDelayMs: 10, maxAgeMs: 500 },
    answer: (_cb, seq) => (seq === 1 ? serverError : ok),
  });
  r.publish(1);
  r.publish(1);
  await until(() => r.store.cursor(1)?.attempts === 1, 'first failure');
  r.advance(600);
  await until(() => r.store.givenUp().length === 1, 'given up');
  assert.deepEqual(
    r.store.givenUp().map((g) => ({ seq: g.seq, topicId: g.topicId })),
    [{ seq: 1, topicId: 1 }],
  );
  await until(() => r.store.cursor(1)?.deliveredSeq === 2, 'seq 2 delivered after the give-up');
  assert.deepEqual(r.sender.seqsTo('http://a.test/cb'), [1, 1, 2]);
  assert.ok(r.events.includes('delivery.gave_up'));
});

test('WH-19: a 410 ends the subscription: no further deliveries, its row removed', async (t) => {
  const r = await startedWithOneSubscription(t, { answer: () => ({ kind: 'gone', status: 410 }) });
  r.publish(1);
  r.publish(1);
  await until(() => r.store.removed.includes(1), 'subscription removed');
  assert.deepEqual(r.scheduler.drivenIds(), []);
  r.publish(1);
  await new Promise((res) => setTimeout(res, 50));
  assert.deepEqual(r.sender.seqsTo('http://a.test/cb'), [1], 'nothing after the 410');
});

test('the origin breaker opens after repeated connection failures, holds retries while open, and one probe closes it', async (t) => {
  const r = await startedWithOneSubscription(t, {
    breaker: { failureThreshold: 2, openMs: 5_000, maxOpenMs: 60_000 },
    answer: () => refused,
  });
  r.publish(1);
  await until(() => r.store.cursor(1)?.attempts === 1, 'first connection failure');
  r.advance(backoffDelay(1, r.retry, r.random));
  await until(() => r.events.includes('delivery.origin_breaker_open'), 'breaker open');
  assert.equal(r.sender.sent.length, 2);

  // The retry is due (backoff at most 80 ms) but the breaker is open for 5 s of the clock.
  r.advance(1_000);
  await new Promise((res) => setTimeout(res, 150));
  assert.equal(r.sender.sent.length, 2, 'no delivery while the breaker is open');

  r.sender.script(() => ok);
  r.advance(5_000);
  await until(() => r.store.cursor(1)?.deliveredSeq === 1, 'the probe delivered');
  assert.equal(r.sender.sent.length, 3, 'exactly one probe');
  assert.ok(r.events.includes('delivery.origin_breaker_half_open'));
  assert.ok(r.events.includes('delivery.origin_breaker_closed'));
});
