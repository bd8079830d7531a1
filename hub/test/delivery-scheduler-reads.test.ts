// DeliveryScheduler: the paths a delivery takes before its POST is answered. A notification another
// process committed is not in this process's cache and is read from the store, and a row that is gone
// is given up on record (promise 1: said, never silently skipped): that over the hub's real SQLite
// store, the real sender and a callback on 127.0.0.1. A failed read is retried like a failed POST,
// and a sender that throws or rejects is a failed delivery: faults the real store and sender cannot
// be made to produce on demand, so those two run on the scheduler's rig (scheduler-rig.ts).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createOutboundAgent } from '@rsnotify/shared';
import { logLines } from '@rsnotify/service-kit/testing';
import { NotificationCache, backoffDelay } from '../src/delivery/index.js';
import { createSender } from '../src/outbound/index.js';
import { openSqliteRepository } from '../src/store/index.js';
import { hasLeaseLapsed } from '../src/subscriptions/index.js';
import { receiverFor, tempDir } from './helpers.js';
import { schedulerOn, startedWithOneSubscription, until } from './scheduler-rig.js';

const TOPIC = 'http://source.test/changes';

type Repo = ReturnType<typeof openSqliteRepository>;

/** An active subscription to TOPIC, straight in the real store. */
function subscribeInStore(repo: Repo, callback: string) {
  return repo.activateSubscription({
    topicUrl: TOPIC,
    topicAsGiven: TOPIC,
    callback,
    secret: undefined,
    algorithm: 'sha256',
    leaseSeconds: 600,
    leaseExpiresAt: Date.now() + 600_000,
    hasLapsed: hasLeaseLapsed,
    now: Date.now(),
  });
}

/** A started scheduler on `store` and the real sender, closed when the test ends. */
async function startedOnRealParts(
  t: TestContext,
  deps: { store: Repo; cache: NotificationCache; logSink: { write(chunk: string): void } },
) {
  const agent = createOutboundAgent({ allowPrivateNetworks: true, connections: 8 });
  t.after(() => agent.close());
  const scheduler = schedulerOn({
    ...deps,
    send: createSender(agent, { timeoutMs: 5_000 }),
    retry: { initialDelayMs: 10, maxDelayMs: 80, maxAgeMs: 60_000 },
    now: () => Date.now(),
    random: () => 0.5,
    flushDelayMs: 1,
  });
  t.after(() => scheduler.close(0));
  await scheduler.start();
  return scheduler;
}

/** Three notifications committed as another hub process would: none in this one's cache. */
async function committedElsewhere(repo: Repo): Promise<number> {
  let topicId = 0;
  for (let i = 1; i <= 3; i++) {
    ({ topicId } = await repo.appendNotification({
      topicUrl: TOPIC,
      receivedAt: Date.now(),
      contentType: 'application/xml',
      linkHeader: `<${TOPIC}>; rel="self"`,
      body: Buffer.from(`<urlset seq="${i}"/>`),
    }));
  }
  return topicId;
}

test('a notification not in the cache is read from the real store and POSTed; a row that is gone is given up on record and the cursor moves on', async (t) => {
  const file = join(await tempDir(t), 'hub.db');
  const repo = openSqliteRepository(file);
  t.after(() => repo.close());
  const callback = await receiverFor(t);
  const sub = await subscribeInStore(repo, callback.url('/cb'));
  const log = logLines();
  const scheduler = await startedOnRealParts(t, {
    store: repo,
    cache: new NotificationCache(1024 * 1024),
    logSink: log.sink,
  });

  // Committed as another hub process would (the wake hook): nothing of it is in this one's cache.
  const topicId = await committedElsewhere(repo);
  // Its row deleted by hand, through a connection of its own, before any delivery.
  const shell = new Database(file);
  shell.prepare('DELETE FROM notifications WHERE topic_id = ? AND seq = 2').run(topicId);
  shell.close();
  scheduler.wake(topicId, 3);

  await until(async () => {
    await scheduler.flush();
    return (await repo.listSubscriptions()).find((s) => s.id === sub.id)?.deliveredSeq === 3;
  }, 'the stored cursor passes all three');
  assert.deepEqual(
    callback.deliveriesTo('/cb').map((d) => d.body.toString('utf8')),
    ['<urlset seq="1"/>', '<urlset seq="3"/>'],
    'the two rows there were, read from the store and POSTed in order',
  );
  const readonly = new Database(file, { readonly: true });
  t.after(() => readonly.close());
  assert.deepEqual(
    readonly.prepare('SELECT subscription_id AS id, seq, reason FROM given_up').all(),
    [{ id: sub.id, seq: 2, reason: 'notification missing from the store' }],
  );
  assert.equal(log.of('delivery.missing_notification').length, 1);
});

test('a notification committed elsewhere is read from the real store once for all the subscriptions that miss it, each is sent it, and the cache lets it go once all have passed it', async (t) => {
  const file = join(await tempDir(t), 'hub.db');
  const repo = openSqliteRepository(file);
  t.after(() => repo.close());
  const callback = await receiverFor(t);
  const paths = ['/a', '/b', '/c', '/d', '/e'];
  for (const path of paths) await subscribeInStore(repo, callback.url(path));
  // The real store, with its reads counted.
  const reads: number[] = [];
  const store = Object.create(repo) as typeof repo;
  store.getNotification = (topicId, seq) => {
    reads.push(seq);
    return repo.getNotification(topicId, seq);
  };
  const cache = new NotificationCache(1024 * 1024);
  const scheduler = await startedOnRealParts(t, { store, cache, logSink: logLines().sink });

  scheduler.wake(await committedElsewhere(repo), 3);

  await until(async () => {
    await scheduler.flush();
    return (await repo.listSubscriptions()).every((s) => s.deliveredSeq === 3);
  }, 'every stored cursor passes all three');
  for (const path of paths)
    assert.deepEqual(
      callback.deliveriesTo(path).map((d) => d.body.toString('utf8')),
      ['<urlset seq="1"/>', '<urlset seq="2"/>', '<urlset seq="3"/>'],
      `${path}: all three, in order`,
    );
  assert.deepEqual(reads, [1, 2, 3], 'one read per notification, not one per subscription');
  assert.equal(cache.size, 0, 'nothing kept once every subscription has passed it');
});

test('a failed read of the row is a failed attempt, retried after the backoff', async (t) => {
  const r = await startedWithOneSubscription(t);
  // Committed by another hub process: nothing of it is in this process's cache.
  r.store.append(1, r.now());
  const read = r.store.getNotification.bind(r.store);
  let busy = 1;
  r.store.getNotification = (topicId, seq) =>
    busy-- > 0
      ? Promise.reject(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }))
      : read(topicId, seq);
  r.scheduler.wake(1, 1);

  await until(() => r.store.cursor(1)?.attempts === 1, 'the failed read is a failed attempt');
  assert.equal(r.store.cursor(1)!.lastError, 'SQLITE_BUSY');
  assert.deepEqual(r.sender.seqsTo('http://a.test/cb'), [], 'nothing sent without its row');
  r.advance(backoffDelay(1, r.retry, r.random));
  await until(() => r.store.cursor(1)?.deliveredSeq === 1, 'delivered on the retry');
  assert.deepEqual(r.sender.seqsTo('http://a.test/cb'), [1]);
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
