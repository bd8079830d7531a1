// Delivery against the real hub: order, signatures, outcomes, retries, give-up and restart (WH-15..WH-20,
// RT-15, RT-16, M-3, M-5, promise 1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import Database from 'better-sqlite3';
import { verifySignature } from '@rsnotify/shared';
import { startHub } from '@rsnotify/hub';
import {
  activeCount,
  hubFor,
  linkHeader,
  metricValue,
  notificationXml,
  publish,
  publishTags,
  receiverFor,
  subscribe,
  waitFor,
} from './helpers.js';

const TOPIC = 'http://source.test/changes';

function tagsOf(bodies: readonly { body: Buffer }[]): string[] {
  return bodies.map((d) => /\/res\/([^/]+)\//.exec(d.body.toString())![1]!);
}

test('M-3, WH-15, RT-15: every notification reaches every subscriber once, in publish order, never merged', async (t) => {
  const { hub } = await hubFor(t);
  const r = await receiverFor(t);
  const { token } = await hub.addSource('src', ['http://source.test/']);
  for (const p of ['/a', '/b', '/c']) await subscribe(hub, r, TOPIC, p);
  const tags = Array.from({ length: 60 }, (_, i) => `n${i}`);
  await publishTags(hub, token, TOPIC, tags);
  await waitFor(
    () => ['/a', '/b', '/c'].every((p) => r.deliveriesTo(p).length >= tags.length),
    'all deliveries',
  );
  for (const p of ['/a', '/b', '/c'])
    assert.deepEqual(tagsOf(r.deliveriesTo(p)), tags, `order at ${p}`);
  // Another topic's subscriber gets none of them (M-6).
  assert.equal(r.deliveriesTo('/other').length, 0);
});

test("WH-18: X-Hub-Signature is an HMAC-sha256 of the exact body with each subscriber's own secret", async (t) => {
  const { hub } = await hubFor(t);
  const r = await receiverFor(t);
  const { token } = await hub.addSource('src', ['http://source.test/']);
  await subscribe(hub, r, TOPIC, '/s1', { 'hub.secret': 'secret-one' });
  await subscribe(hub, r, TOPIC, '/s2', { 'hub.secret': 'secret-two-é' });
  await subscribe(hub, r, TOPIC, '/plain');
  assert.equal(
    (
      await publish(hub.url, notificationXml('sig'), {
        link: linkHeader(TOPIC, hub.url),
        authorization: `Bearer ${token}`,
      })
    ).status,
    200,
  );
  await waitFor(() => r.deliveries.length === 3, 'deliveries');
  const [d1] = r.deliveriesTo('/s1');
  const [d2] = r.deliveriesTo('/s2');
  const [d3] = r.deliveriesTo('/plain');
  assert.match(String(d1!.headers['x-hub-signature']), /^sha256=[0-9a-f]{64}$/);
  assert.deepEqual(
    verifySignature(String(d1!.headers['x-hub-signature']), 'secret-one', d1!.body),
    { ok: true, method: 'sha256' },
  );
  assert.deepEqual(
    verifySignature(String(d2!.headers['x-hub-signature']), 'secret-two-é', d2!.body),
    { ok: true, method: 'sha256' },
  );
  assert.equal(
    verifySignature(String(d1!.headers['x-hub-signature']), 'secret-two-é', d1!.body).ok,
    false,
  );
  assert.equal(d3!.headers['x-hub-signature'], undefined);
});

test('WH-19, WH-20, RT-16: 500, 3xx and resets are retried (redirects not followed) until a 2xx; later updates still flow', async (t) => {
  const { hub } = await hubFor(t, { retry: { initialDelayMs: 20, maxDelayMs: 100 } });
  const r = await receiverFor(t);
  const { token } = await hub.addSource('src', ['http://source.test/']);
  await subscribe(hub, r, TOPIC, '/flaky');
  const script: (number | 'reset')[] = [500, 302, 'reset', 503, 404];
  let calls = 0;
  r.deliver = () => (calls < script.length ? script[calls++]! : (calls++, 200));
  await publishTags(hub, token, TOPIC, ['first', 'second']);
  await waitFor(() => r.deliveries.length === 2, 'delivered after the failures');
  assert.deepEqual(tagsOf(r.deliveries), ['first', 'second'], 'order kept across retries');
  assert.equal(calls, script.length + 2);
  assert.equal(r.deliveriesTo('/moved').length, 0, 'the 302 was not followed');
  assert.equal(
    await metricValue(hub, 'rsnotify_hub_deliveries_total', 'outcome="failed"'),
    script.length,
  );
  assert.equal(await metricValue(hub, 'rsnotify_hub_deliveries_total', 'outcome="delivered"'), 2);
});

test('WH-19: a 410 ends the subscription; other subscribers keep receiving', async (t) => {
  const { hub } = await hubFor(t);
  const r = await receiverFor(t);
  const { token } = await hub.addSource('src', ['http://source.test/']);
  await subscribe(hub, r, TOPIC, '/gone');
  await subscribe(hub, r, TOPIC, '/stays');
  r.deliver = (d) => (d.path.startsWith('/gone') ? 410 : 200);
  await publishTags(hub, token, TOPIC, ['x1', 'x2', 'x3']);
  await waitFor(() => r.deliveriesTo('/stays').length === 3, 'healthy deliveries');
  await waitFor(async () => (await activeCount(hub)) === 1, 'the 410 subscription removed');
  assert.equal(
    await metricValue(hub, 'rsnotify_hub_deliveries_total', 'outcome="gone"'),
    1,
    'one attempt, then no more',
  );
});

test('promise 1, WH-20: past the retry age a notification is recorded as given up and the cursor moves on', async (t) => {
  const { hub, dbFile } = await hubFor(t, {
    retry: { initialDelayMs: 20, maxDelayMs: 50, maxAgeMs: 300 },
  });
  const r = await receiverFor(t);
  const { token } = await hub.addSource('src', ['http://source.test/']);
  await subscribe(hub, r, TOPIC, '/down');
  let down = true;
  r.deliver = () => (down ? 500 : 200);
  assert.equal(
    (
      await publish(hub.url, notificationXml('lost'), {
        link: linkHeader(TOPIC, hub.url),
        authorization: `Bearer ${token}`,
      })
    ).status,
    200,
  );
  await waitFor(
    async () =>
      (await metricValue(hub, 'rsnotify_hub_deliveries_total', 'outcome="gave_up"')) === 1,
    'given up',
  );
  down = false;
  assert.equal(
    (
      await publish(hub.url, notificationXml('next'), {
        link: linkHeader(TOPIC, hub.url),
        authorization: `Bearer ${token}`,
      })
    ).status,
    200,
  );
  await waitFor(() => r.deliveries.length === 1, 'the next one is delivered');
  assert.deepEqual(tagsOf(r.deliveries), ['next']);
  assert.equal(await activeCount(hub), 1, 'WH-20: the subscription stays active');
  await hub.close();
  const db = new Database(dbFile, { readonly: true });
  t.after(() => db.close());
  const rows = db.prepare('SELECT seq, reason FROM given_up').all() as {
    seq: number;
    reason: string;
  }[];
  assert.equal(rows.length, 1);
  assert.equal(rows[0]!.seq, 1);
  assert.match(rows[0]!.reason, /status 500/);
});

test('M-5, promise 1: notifications accepted while a callback is down are delivered after a hub restart', async (t) => {
  const { hub, dbFile } = await hubFor(t, { retry: { initialDelayMs: 50, maxDelayMs: 200 } });
  const r = await receiverFor(t);
  const { token } = await hub.addSource('src', ['http://source.test/']);
  await subscribe(hub, r, TOPIC, '/later');
  r.deliver = 503;
  const tags = ['r1', 'r2', 'r3', 'r4'];
  await publishTags(hub, token, TOPIC, tags);
  await waitFor(
    async () => (await metricValue(hub, 'rsnotify_hub_deliveries_total', 'outcome="failed"')) >= 1,
    'a failed attempt',
  );
  await hub.close();
  r.deliver = 200;
  const again = await startHub({
    host: '127.0.0.1',
    port: 0,
    dbFile,
    allowPrivateNetworks: true,
    logLevel: 'silent',
    retry: { initialDelayMs: 50, maxDelayMs: 200 },
  });
  t.after(() => again.close());
  await waitFor(() => r.deliveries.length >= tags.length, 'delivered after the restart');
  assert.deepEqual(tagsOf(r.deliveries), tags);
});

test('a new subscription starts at the end of the topic: it gets what is accepted after it became active', async (t) => {
  const { hub } = await hubFor(t);
  const r = await receiverFor(t);
  const { token } = await hub.addSource('src', ['http://source.test/']);
  assert.equal(
    (
      await publish(hub.url, notificationXml('before'), {
        link: linkHeader(TOPIC, hub.url),
        authorization: `Bearer ${token}`,
      })
    ).status,
    200,
  );
  await subscribe(hub, r, TOPIC, '/new');
  assert.equal(
    (
      await publish(hub.url, notificationXml('after'), {
        link: linkHeader(TOPIC, hub.url),
        authorization: `Bearer ${token}`,
      })
    ).status,
    200,
  );
  await waitFor(() => r.deliveries.length === 1, 'delivery');
  await new Promise((res) => setTimeout(res, 100));
  assert.deepEqual(tagsOf(r.deliveries), ['after']);
});

test('promise 1: while the hub runs, its cursor batches record in SQLite how far each subscription got and its retry state', async (t) => {
  const { hub, dbFile } = await hubFor(t, {
    retry: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
  });
  const r = await receiverFor(t);
  const { token } = await hub.addSource('src', ['http://source.test/']);
  await subscribe(hub, r, TOPIC, '/up');
  await subscribe(hub, r, TOPIC, '/down');
  r.deliver = (d) => (d.path === '/down' ? 500 : 200);
  await publishTags(hub, token, TOPIC, ['c1', 'c2', 'c3', 'c4', 'c5']);
  await waitFor(() => r.deliveriesTo('/up').length === 5, 'all five delivered to /up');
  // Read from another connection while the hub runs: only the batch timer can have written these.
  const db = new Database(dbFile, { readonly: true });
  t.after(() => db.close());
  const row = (path: string) =>
    db
      .prepare(
        'SELECT delivered_seq AS seq, attempts, last_status AS status FROM subscriptions WHERE callback = ?',
      )
      .get(r.url(path)) as { seq: number; attempts: number; status: number | null } | undefined;
  await waitFor(() => row('/up')?.seq === 5, 'the cursor of /up written');
  assert.deepEqual(row('/up'), { seq: 5, attempts: 0, status: 200 });
  await waitFor(() => (row('/down')?.attempts ?? 0) >= 1, 'the failed attempt of /down written');
  assert.deepEqual(row('/down'), { seq: 0, attempts: 1, status: 500 });
});

test('RT-4: a publish is answered after the deliveries it dispatched to idle subscribers are written (undici writes a request on an idle keep-alive socket a turn after its dispatch)', async (t) => {
  const { hub } = await hubFor(t);
  const r = await receiverFor(t);
  const { token } = await hub.addSource('src', ['http://source.test/']);
  await subscribe(hub, r, TOPIC, '/idle');
  const order: string[] = [];
  const onDeliveryWritten = (m: unknown): void => {
    const { request } = m as { request: { method: string; path: string } };
    if (request.method === 'POST' && request.path === '/idle') order.push('delivery written');
  };
  const onAnswered = (m: unknown): void => {
    const { request } = m as { request: { method?: string; url?: string } };
    if (request.method === 'POST' && request.url !== '/idle') order.push('publish answered');
  };
  const headers = { link: linkHeader(TOPIC, hub.url), authorization: `Bearer ${token}` };
  // The first delivery opens the connection; from the second on, it is idle and kept alive.
  assert.equal((await publish(hub.url, notificationXml('n0'), headers)).status, 200);
  await waitFor(() => r.deliveriesTo('/idle').length === 1, 'first delivery');
  diagnosticsChannel.subscribe('undici:client:sendHeaders', onDeliveryWritten);
  diagnosticsChannel.subscribe('http.server.response.finish', onAnswered);
  t.after(() => {
    diagnosticsChannel.unsubscribe('undici:client:sendHeaders', onDeliveryWritten);
    diagnosticsChannel.unsubscribe('http.server.response.finish', onAnswered);
  });
  for (const tag of ['n1', 'n2', 'n3']) {
    assert.equal((await publish(hub.url, notificationXml(tag), headers)).status, 200);
    await waitFor(() => order.length === 2, `${tag}: delivered and answered`);
    assert.deepEqual(order.splice(0), ['delivery written', 'publish answered'], tag);
  }
});
