// How committed deliveries reach the ordering (runner/inbox-feed.ts), driven without sockets
// (runner-fakes.ts): within queuedDeliveryBytes from memory, beyond it read back from the inbox,
// at start-up a page at a time from the stored rows; in the order the rows were committed each
// way, each row once, deliveries handed over during a read-back or the start-up listing included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  at,
  changeListXml,
  notificationXml,
  resourceListXml,
  runnerRig,
  type RunnerRig,
} from './runner-fakes.js';

async function started(queuedDeliveryBytes?: number): Promise<RunnerRig> {
  const r = await runnerRig({
    hub: 'http://hub.test/hub',
    ...(queuedDeliveryBytes ? { queuedDeliveryBytes } : {}),
  });
  r.source.serve('/resourcelist.xml', resourceListXml(10, []));
  r.source.serve('/changelist.xml', changeListXml(5, undefined, []));
  r.runner.start();
  await r.runner.idle();
  assert.equal(await r.syncedUntil(), at(10));
  return r;
}

/** Commits notification `i` (10+i .. 11+i, creating `r<i>`) and hands it over, as the intake does. */
const commitAndHandOver = (r: RunnerRig, i: number): Promise<number> =>
  r.handOver(10 + i, 11 + i, [{ path: `r${i}`, change: 'created', s: 10 + i }]);

async function readBack(r: RunnerRig): Promise<number> {
  const { values } = await r.metrics.deliveriesReadBack.get();
  return values.reduce((n, v) => n + v.value, 0);
}

const created = (from: number, to: number): string[] =>
  Array.from({ length: to - from }, (_, k) => `created r${from + k}`);

test('a burst within queuedDeliveryBytes is fed from memory, in order', async () => {
  const r = await started();
  for (let i = 0; i < 20; i++) await commitAndHandOver(r, i);
  await r.runner.idle();
  assert.deepEqual(r.mirror.summary(), created(0, 20));
  assert.equal(await r.syncedUntil(), at(30));
  assert.equal(await readBack(r), 0, 'nothing was read back');
});

test('beyond queuedDeliveryBytes the rows are read back from the inbox in commit order, those handed over during the read-back too', async () => {
  const r = await started(1);
  for (let i = 0; i < 30; i++) await commitAndHandOver(r, i);
  assert.ok(
    (await r.runner.status()).buffered >= 29,
    'the rows waiting in the inbox count as buffered',
  );
  // More rows while the read-back is under way (it yields a turn between rows).
  await nextTurn();
  await nextTurn();
  for (let i = 30; i < 100; i++) await commitAndHandOver(r, i);
  await r.runner.idle();
  assert.deepEqual(r.mirror.summary(), created(0, 100), 'every change, in commit order');
  assert.equal(await r.syncedUntil(), at(110));
  // A delivery handed over while none waits in memory is fed from memory (the first, and any that
  // comes once the lane has started the one before), every other one is read back.
  const readBackRows = await readBack(r);
  assert.ok(readBackRows >= 95 && readBackRows < 100, `read back: ${readBackRows} of 100`);
  assert.equal(r.events('gap.detected').length, 0, 'no gap');
  assert.equal((await r.runner.status()).buffered, 0);
  // Caught up: the next delivery is fed from memory again.
  await commitAndHandOver(r, 100);
  await r.runner.idle();
  assert.equal(await readBack(r), readBackRows, 'fed from memory once caught up');
  assert.deepEqual(r.mirror.summary().slice(-1), ['created r100']);
});

test('at start-up the stored rows are fed a page at a time, in order, and a row also handed over meanwhile is fed once', async () => {
  const r = await runnerRig({ hub: 'http://hub.test/hub' });
  r.source.serve('/resourcelist.xml', resourceListXml(10, []));
  r.source.serve('/changelist.xml', changeListXml(5, undefined, []));
  // A backlog left by an outage: 150 rows stored, none fed (more than two pages).
  for (let i = 0; i < 150; i++)
    await r.repo.insertInbox({
      sourceId: r.runner.sourceId,
      receivedAt: r.clock.now,
      body: notificationXml(10 + i, 11 + i, [{ path: `r${i}`, change: 'created', s: 10 + i }]),
      signature: 'unsigned',
    });
  r.runner.start();
  // Three more committed and handed over while the position is established: the start-up listing
  // offers them too.
  for (let i = 150; i < 153; i++) await commitAndHandOver(r, i);
  await r.runner.idle();
  assert.deepEqual(r.mirror.summary(), created(0, 153), 'every change, in commit order');
  assert.equal(await r.syncedUntil(), at(163));
  const { values } = await r.metrics.notificationsSuperseded.get();
  assert.equal(
    values.reduce((n, v) => n + v.value, 0),
    0,
    'none fed twice (a second offer would be dropped as covered)',
  );
  assert.ok([...r.repo.inbox.values()].every((row) => row.state === 'applied'));
  assert.equal((await r.runner.status()).buffered, 0);
});
