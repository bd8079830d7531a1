// Slow-callback isolation, end to end: real hub, real HTTP receivers that accept the delivery and
// never answer. The healthy callback must be delivered while the hanging ones still hang (that is
// the outcome asserted: no waiting for their time-outs), and once the hanging callbacks answer
// again they get everything, in publish order, nothing lost. Time to the healthy delivery is
// reported as a diagnostic only (timing bounds belong in test/bench).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  activeCount,
  hubFor,
  linkHeader,
  metricValue,
  notificationXml,
  postForm,
  publish,
  receiverFor,
  uniqueName,
  waitFor,
  type Receiver,
} from './helpers.js';
import type { RunningHub } from '@rsnotify/hub';

const TOPIC = 'http://source.test/starve/topic';

async function subscribeMany(hub: RunningHub, receiver: Receiver, paths: string[]): Promise<void> {
  for (let i = 0; i < paths.length; i += 25) {
    await Promise.all(
      paths.slice(i, i + 25).map(async (p) => {
        const a = await postForm(hub.url, {
          'hub.mode': 'subscribe',
          'hub.topic': TOPIC,
          'hub.callback': receiver.url(p),
        });
        assert.equal(a.status, 202);
      }),
    );
  }
}

function tagsOf(receiver: Receiver, path: string): string[] {
  return receiver.deliveries
    .filter((d) => d.path === path)
    .map((d) => /res\/([^/]+)\//.exec(d.body.toString('utf8'))?.[1] ?? '?');
}

const HUB_OPTIONS = {
  checkTopics: false,
  // Hanging deliveries time out (and retry) quickly enough for the recovery half of the test.
  requestTimeoutMs: 3_000,
  retry: { initialDelayMs: 200, maxDelayMs: 1_000 },
};

test('probe: 300 hanging callbacks on one origin do not delay a healthy one on another; all delivered after recovery', async (t) => {
  const { hub } = await hubFor(t, HUB_OPTIONS);
  const { token } = await hub.addSource(uniqueName('src'), ['http://source.test/starve/']);
  const hanging = await receiverFor(t);
  const healthy = await receiverFor(t);
  hanging.deliver = 'hang';
  const paths = Array.from({ length: 300 }, (_, i) => `/hang/${i}/`);
  await subscribeMany(hub, hanging, paths);
  await subscribeMany(hub, healthy, ['/healthy']);
  await waitFor(async () => (await activeCount(hub)) === 301, '301 active subscriptions', 60_000);

  const headers = { authorization: `Bearer ${token}`, link: linkHeader(TOPIC, hub.url) };
  const started = Date.now();
  assert.equal((await publish(hub.url, notificationXml('n1'), headers)).status, 200);
  assert.equal((await publish(hub.url, notificationXml('n2'), headers)).status, 200);
  await waitFor(() => healthy.deliveriesTo('/healthy').length === 2, 'healthy callback delivered');
  t.diagnostic(`healthy callback had both notifications after ${Date.now() - started} ms`);
  // Outcome, not timing: the healthy deliveries came while none of the hanging ones had even timed out.
  assert.equal(await metricValue(hub, 'rsnotify_hub_deliveries_total', 'outcome="failed"'), 0);
  assert.deepEqual(tagsOf(healthy, '/healthy'), ['n1', 'n2']);

  hanging.deliver = 200;
  await waitFor(
    () => paths.every((p) => hanging.deliveriesTo(p).length >= 2),
    'every hanging callback delivered after recovery',
    120_000,
  );
  for (const p of paths) assert.deepEqual(tagsOf(hanging, p), ['n1', 'n2'], `order for ${p}`);
});

test('probe: 20 hanging callbacks and a healthy one on the same origin: the healthy one is not queued behind them', async (t) => {
  const { hub } = await hubFor(t, HUB_OPTIONS);
  const { token } = await hub.addSource(uniqueName('src'), ['http://source.test/starve/']);
  const receiver = await receiverFor(t);
  let hang = true;
  receiver.deliver = (d) => (hang && d.path.startsWith('/hang/') ? 'hang' : 200);
  const paths = Array.from({ length: 20 }, (_, i) => `/hang/${i}/`);
  // The hanging ones first: subscription order is delivery order, the worst case for the healthy one.
  await subscribeMany(hub, receiver, paths);
  await waitFor(async () => (await activeCount(hub)) === 20, '20 active subscriptions', 60_000);
  await subscribeMany(hub, receiver, ['/healthy']);
  await waitFor(async () => (await activeCount(hub)) === 21, '21 active subscriptions', 60_000);

  const headers = { authorization: `Bearer ${token}`, link: linkHeader(TOPIC, hub.url) };
  const started = Date.now();
  assert.equal((await publish(hub.url, notificationXml('n1'), headers)).status, 200);
  await waitFor(() => receiver.deliveriesTo('/healthy').length === 1, 'healthy callback delivered');
  t.diagnostic(`healthy callback delivered after ${Date.now() - started} ms`);
  assert.equal(await metricValue(hub, 'rsnotify_hub_deliveries_total', 'outcome="failed"'), 0);

  // The hanging ones time out, the origin's breaker opens; a second publish still reaches the
  // healthy callback (its record is clean), and after recovery everyone has both, in order.
  await waitFor(
    async () => (await metricValue(hub, 'rsnotify_hub_deliveries_total', 'outcome="failed"')) >= 5,
    'hanging deliveries timed out',
    30_000,
  );
  assert.equal((await publish(hub.url, notificationXml('n2'), headers)).status, 200);
  await waitFor(
    () => receiver.deliveriesTo('/healthy').length === 2,
    'healthy callback got the second notification',
    30_000,
  );
  hang = false;
  await waitFor(
    () => paths.every((p) => receiver.deliveriesTo(p).length >= 2),
    'every hanging callback delivered after recovery',
    120_000,
  );
  for (const p of [...paths, '/healthy'])
    assert.deepEqual(tagsOf(receiver, p), ['n1', 'n2'], `order for ${p}`);
});
