// The life of a subscription against the real hub (127.0.0.1, real SQLite file, real HTTP callbacks):
// re-subscription, unsubscription, failed verification, lease expiry, denial, restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Receiver,
  activeCount,
  get,
  hubFor,
  linkHeader,
  notificationXml,
  postForm,
  publish,
  receiverFor,
  subscribe,
  waitFor,
} from './helpers.js';
import { verifySignature } from '@rsnotify/shared';
import { startHub } from '@rsnotify/hub';

const TOPIC = 'http://source.test/changes';

test('WH-9, WH-18: a re-subscription replaces the secret only once verified; without a secret deliveries are unsigned', async (t) => {
  const { hub } = await hubFor(t);
  const r = await receiverFor(t);
  const { token } = await hub.addSource('src', ['http://source.test/']);
  const send = async (tag: string) => {
    const a = await publish(hub.url, notificationXml(tag), {
      link: linkHeader(TOPIC, hub.url),
      authorization: `Bearer ${token}`,
    });
    assert.equal(a.status, 200);
    return await waitFor(
      () => r.deliveries.find((d) => d.body.toString().includes(`/res/${tag}/`)),
      `delivery ${tag}`,
    );
  };
  await subscribe(hub, r, TOPIC, '/w', { 'hub.secret': 'first-secret' });
  const d1 = await send('one');
  assert.deepEqual(
    verifySignature(String(d1.headers['x-hub-signature']), 'first-secret', d1.body),
    { ok: true, method: 'sha256' },
  );

  // A re-subscription whose verification fails leaves the old secret in force.
  r.verify = 'wrong-body';
  await postForm(hub.url, {
    'hub.mode': 'subscribe',
    'hub.topic': TOPIC,
    'hub.callback': r.url('/w'),
    'hub.secret': 'second-secret',
  });
  await waitFor(() => r.verificationsTo('/w').length === 2, 'failed re-verification');
  await new Promise((res) => setTimeout(res, 100));
  const d2 = await send('two');
  assert.equal(
    verifySignature(String(d2.headers['x-hub-signature']), 'first-secret', d2.body).ok,
    true,
  );

  // A verified one replaces it.
  r.verify = 'echo';
  await postForm(hub.url, {
    'hub.mode': 'subscribe',
    'hub.topic': TOPIC,
    'hub.callback': r.url('/w'),
    'hub.secret': 'second-secret',
  });
  await waitFor(() => r.verificationsTo('/w').length === 3, 'second verification');
  await waitFor(async () => {
    const d = await send(`three-${Date.now()}`);
    return verifySignature(String(d.headers['x-hub-signature']), 'second-secret', d.body).ok;
  }, 'signed with the new secret');

  // Re-subscribing without a secret makes deliveries unsigned.
  await postForm(hub.url, {
    'hub.mode': 'subscribe',
    'hub.topic': TOPIC,
    'hub.callback': r.url('/w'),
  });
  await waitFor(() => r.verificationsTo('/w').length === 4, 'third verification');
  await waitFor(
    async () => (await send(`four-${Date.now()}`)).headers['x-hub-signature'] === undefined,
    'unsigned delivery',
  );
  assert.equal(await activeCount(hub), 1, 'still one subscription per (topic, callback)');
});

test('WH-10, RT-14: unsubscription is verified; a refused one changes nothing, a verified one stops deliveries', async (t) => {
  const { hub } = await hubFor(t);
  const r = await receiverFor(t);
  const { token } = await hub.addSource('src', ['http://source.test/']);
  await subscribe(hub, r, TOPIC, '/u');
  r.verify = 'not-found';
  assert.equal(
    (
      await postForm(hub.url, {
        'hub.mode': 'unsubscribe',
        'hub.topic': TOPIC,
        'hub.callback': r.url('/u'),
        'hub.lease_seconds': '5',
      })
    ).status,
    202,
  );
  await waitFor(() => r.verificationsTo('/u').length === 2, 'unsubscribe verification');
  const v = r.verificationsTo('/u')[1]!;
  assert.equal(v.query.get('hub.mode'), 'unsubscribe');
  assert.ok(v.query.get('hub.challenge'));
  await new Promise((res) => setTimeout(res, 100));
  assert.equal(await activeCount(hub), 1, 'refused unsubscription: still subscribed');

  r.verify = 'echo';
  assert.equal(
    (
      await postForm(hub.url, {
        'hub.mode': 'unsubscribe',
        'hub.topic': TOPIC,
        'hub.callback': r.url('/u'),
      })
    ).status,
    202,
  );
  await waitFor(async () => (await activeCount(hub)) === 0, 'unsubscribed');
  assert.equal(
    (
      await publish(hub.url, notificationXml('after'), {
        link: linkHeader(TOPIC, hub.url),
        authorization: `Bearer ${token}`,
      })
    ).status,
    200,
  );
  await new Promise((res) => setTimeout(res, 300));
  assert.equal(r.deliveries.length, 0);
});

test('WH-12: a 2xx with another body, a redirect, or a 404 is a failed verification', async (t) => {
  const { hub } = await hubFor(t);
  const r = await receiverFor(t);
  for (const [behaviour, path] of [
    ['wrong-body', '/wb'],
    ['redirect', '/rd'],
    ['not-found', '/nf'],
  ] as const) {
    r.verify = behaviour;
    assert.equal(
      (
        await postForm(hub.url, {
          'hub.mode': 'subscribe',
          'hub.topic': TOPIC,
          'hub.callback': r.url(path),
        })
      ).status,
      202,
    );
    await waitFor(() => r.verificationsTo(path).length === 1, `verification ${path}`);
  }
  await new Promise((res) => setTimeout(res, 200));
  assert.equal(r.verificationsTo('/elsewhere').length, 0, 'the redirect was not followed');
  assert.equal(await activeCount(hub), 0);
});

test('WH-13, RT-11: leases are clamped to the bounds and expiry is enforced', async (t) => {
  const { hub } = await hubFor(t, {
    leaseMinSeconds: 1,
    leaseDefaultSeconds: 2,
    leaseMaxSeconds: 2,
  });
  const r = await receiverFor(t);
  const { token } = await hub.addSource('src', ['http://source.test/']);
  await postForm(hub.url, {
    'hub.mode': 'subscribe',
    'hub.topic': TOPIC,
    'hub.callback': r.url('/lease'),
    'hub.lease_seconds': '999999',
  });
  await waitFor(() => r.verificationsTo('/lease').length === 1, 'verification');
  assert.equal(
    r.verificationsTo('/lease')[0]!.query.get('hub.lease_seconds'),
    '2',
    'clamped to the maximum',
  );
  await waitFor(async () => (await activeCount(hub)) === 1, 'active');
  assert.equal(
    (
      await publish(hub.url, notificationXml('in-lease'), {
        link: linkHeader(TOPIC, hub.url),
        authorization: `Bearer ${token}`,
      })
    ).status,
    200,
  );
  await waitFor(() => r.deliveries.length === 1, 'delivery within the lease');
  await waitFor(async () => (await activeCount(hub)) === 0, 'lease expired', 10_000);
  assert.equal(
    (
      await publish(hub.url, notificationXml('after-lease'), {
        link: linkHeader(TOPIC, hub.url),
        authorization: `Bearer ${token}`,
      })
    ).status,
    200,
  );
  await new Promise((res) => setTimeout(res, 300));
  assert.equal(r.deliveries.length, 1, 'an expired subscription gets nothing');
  // A renewal after the lapse starts afresh: what was accepted while it had lapsed is not owed to it.
  await postForm(hub.url, {
    'hub.mode': 'subscribe',
    'hub.topic': TOPIC,
    'hub.callback': r.url('/lease'),
  });
  await waitFor(async () => (await activeCount(hub)) === 1, 'renewed');
  assert.equal(
    (
      await publish(hub.url, notificationXml('renewed'), {
        link: linkHeader(TOPIC, hub.url),
        authorization: `Bearer ${token}`,
      })
    ).status,
    200,
  );
  await waitFor(() => r.deliveries.length === 2, 'delivery after renewal');
  assert.match(r.deliveries[1]!.body.toString(), /\/res\/renewed\//);
});

test('WH-14: a Source policy refusing the callback sends hub.mode=denied with hub.reason', async (t) => {
  const { hub } = await hubFor(t);
  const r = await receiverFor(t);
  const { token } = await hub.addSource('strict', ['http://source.test/'], {
    allowCallbacks: [r.url('/allowed/')],
  });
  assert.equal(
    (
      await postForm(hub.url, {
        'hub.mode': 'subscribe',
        'hub.topic': TOPIC,
        'hub.callback': r.url('/denied'),
      })
    ).status,
    202,
  );
  const [v] = await waitFor(
    () => (r.verificationsTo('/denied').length ? r.verificationsTo('/denied') : undefined),
    'denial',
  );
  assert.equal(v!.query.get('hub.mode'), 'denied');
  assert.equal(v!.query.get('hub.topic'), TOPIC);
  assert.match(v!.query.get('hub.reason') ?? '', /not allowed/);
  assert.equal(v!.query.get('hub.challenge'), null);
  await subscribe(hub, r, TOPIC, '/allowed/1');
  assert.equal(
    (
      await publish(hub.url, notificationXml('p'), {
        link: linkHeader(TOPIC, hub.url),
        authorization: `Bearer ${token}`,
      })
    ).status,
    200,
  );
  await waitFor(() => r.deliveries.length === 1, 'delivery to the allowed callback');
  assert.equal(r.deliveriesTo('/denied').length, 0);
  assert.equal(await activeCount(hub), 1);
});

test('WH-3: a verification pending when the hub stops is carried out after a restart', async (t) => {
  const { hub, dbFile } = await hubFor(t);
  // A callback whose server is not up yet: connection refused, so the intent stays pending for a retry.
  const probe = await Receiver.start();
  const port = Number(new URL(probe.baseUrl).port);
  await probe.close();
  const callback = `http://127.0.0.1:${port}/later`;
  assert.equal(
    (
      await postForm(hub.url, {
        'hub.mode': 'subscribe',
        'hub.topic': TOPIC,
        'hub.callback': callback,
      })
    ).status,
    202,
  );
  await hub.close();
  const r = await Receiver.start(port);
  t.after(() => r.close());
  const again = await startHub({
    host: '127.0.0.1',
    port: 0,
    dbFile,
    allowPrivateNetworks: true,
    logLevel: 'silent',
  });
  t.after(() => again.close());
  await waitFor(() => r.verificationsTo('/later').length === 1, 'the resumed verification', 15_000);
  await waitFor(async () => (await activeCount(again)) === 1, 'subscription active after restart');
  assert.equal((await get(new URL('/healthz', again.url).href)).status, 200);
});
