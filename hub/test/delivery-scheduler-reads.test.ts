// DeliveryScheduler as a unit (scheduler-rig.ts): the paths a delivery takes before its POST is
// answered. A notification another process committed is not in this process's cache and is read
// from the store; a failed read is retried like a failed POST, a row that is gone is given up on
// record (promise 1: said, never silently skipped), and a sender that throws is a failed delivery.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelay } from '../src/delivery/index.js';
import { startedWithOneSubscription, until } from './scheduler-rig.js';

test('a notification not in the cache is read from the store; a failed read is retried after the backoff; a row that is gone is given up on record', async (t) => {
  const r = await startedWithOneSubscription(t);
  // Committed by another hub process (the wake hook): nothing of it is in this process's cache.
  for (let i = 0; i < 3; i++) r.store.append(1, r.now());
  r.store.notifications.delete('1:2'); // its row deleted by hand
  const read = r.store.getNotification.bind(r.store);
  let busy = 1;
  r.store.getNotification = (topicId, seq) =>
    busy-- > 0
      ? Promise.reject(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }))
      : read(topicId, seq);
  r.scheduler.wake(1, 3);

  await until(() => r.store.cursor(1)?.attempts === 1, 'the failed read is a failed attempt');
  assert.equal(r.store.cursor(1)!.lastError, 'SQLITE_BUSY');
  assert.deepEqual(r.sender.seqsTo('http://a.test/cb'), [], 'nothing sent without its row');

  r.advance(backoffDelay(1, r.retry, r.random));
  await until(() => r.store.cursor(1)?.deliveredSeq === 3, 'the cursor passes all three');
  assert.deepEqual(r.sender.seqsTo('http://a.test/cb'), [1, 3], 'seq 2 had no row to send');
  assert.deepEqual(
    r.store.givenUp().map((g) => ({ seq: g.seq, reason: g.reason })),
    [{ seq: 2, reason: 'notification missing from the store' }],
  );
  assert.ok(r.events.includes('delivery.missing_notification'));
  assert.equal(r.store.reads, 3, 'after the failed read, each row read once: 1, 2 (gone) and 3');
});

test('a sender that throws, or rejects, instead of answering is a failed delivery, retried after the backoff', async (t) => {
  const failures = [
    () => {
      throw Object.assign(new Error('invalid header'), { code: 'ERR_INVALID' });
    },
    () => Promise.reject(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })),
  ];
  const r = await startedWithOneSubscription(t, {
    wrapSend:
      (send) =>
      (...args) =>
        (failures.shift() ?? send)(...args),
  });
  r.publish(1);
  await until(() => r.store.cursor(1)?.attempts === 1, 'the throw is a failed attempt');
  assert.equal(r.store.cursor(1)!.lastError, 'ERR_INVALID');
  r.advance(backoffDelay(1, r.retry, r.random));
  await until(() => r.store.cursor(1)?.attempts === 2, 'the rejection is a failed attempt');
  assert.equal(r.store.cursor(1)!.lastError, 'ECONNRESET');
  r.advance(backoffDelay(2, r.retry, r.random));
  await until(() => r.store.cursor(1)?.deliveredSeq === 1, 'delivered on the second retry');
  assert.deepEqual(r.sender.seqsTo('http://a.test/cb'), [1], 'the fake callback saw one POST');
});
