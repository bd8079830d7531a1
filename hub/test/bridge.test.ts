// The bridge inside a real hub against a fake Source over real HTTP: discovery from the Capability
// List, conditional GETs, Retry-After, one request at a time per origin, the outbound guard, size
// limits, the lookup endpoint and the bridged topic (RT-2, RT-3), and delivery to a subscriber.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseChangeNotification, verifySignature } from '@rsnotify/shared';
import { FakeSource } from './bridge-source.js';
import { join } from 'node:path';
import { startHub } from '@rsnotify/hub';
import { get, hubFor, receiverFor, subscribe, tempDir, waitFor } from './helpers.js';

async function sourceFor(t: { after: (fn: () => Promise<void>) => void }): Promise<FakeSource> {
  const s = await FakeSource.start();
  t.after(() => s.close());
  return s;
}

test('bridge: new Change List entries reach a subscriber as a signed, contiguous change notification (WH-19, RN-5)', async (t) => {
  const source = await sourceFor(t);
  source.add('a');
  const { hub } = await hubFor(t);
  const view = await hub.addBridgedSource('src', `${source.baseUrl}/capabilitylist.xml`, {
    intervalMs: 150,
  });
  assert.equal(view.topic, `${hub.url}/bridge/src`);
  const start = await waitFor(
    async () => (await hub.listBridgedSources())[0]?.coveredTo,
    'first poll',
  );
  const receiver = await receiverFor(t);
  await subscribe(hub, receiver, view.topic, '/cb', { 'hub.secret': 'bridge-secret' });
  await new Promise((r) => setTimeout(r, 5));
  source.add('b');
  source.add('c', undefined, 'created');
  const d = await waitFor(
    () => receiver.deliveriesTo('/cb')[0],
    'delivery of the bridged notification',
  );
  const n = parseChangeNotification(d.body.toString('utf8'));
  assert.deepEqual(
    n.entries.map((e) => e.loc),
    [`${source.baseUrl}/r/b`, `${source.baseUrl}/r/c`],
    'only what is new, in list order',
  );
  const covered = (await hub.listBridgedSources())[0]!.coveredTo!;
  assert.ok(n.from.lexical >= start, 'from = where coverage stood when the entries appeared');
  assert.ok(
    n.entries.every((e) => e.md!.datetime!.key >= n.from.key && e.md!.datetime!.key <= n.until.key),
    'entries inside [from, until]',
  );
  assert.ok(covered >= n.until.lexical);
  assert.match(String(d.headers.link), new RegExp(`<${view.topic}>; rel="self"`));
  assert.deepEqual(verifySignature(String(d.headers['x-hub-signature']), 'bridge-secret', d.body), {
    ok: true,
    method: 'sha256',
  });
  source.add('d');
  const d2 = await waitFor(() => receiver.deliveriesTo('/cb')[1], 'second delivery');
  const n2 = parseChangeNotification(d2.body.toString('utf8'));
  assert.equal(n2.from.lexical, n.until.lexical, 'RN-5: contiguous');
  assert.deepEqual(
    n2.entries.map((e) => e.loc),
    [`${source.baseUrl}/r/d`],
  );
});

test('bridge: conditional GETs; unchanged lists cost a 304 and publish nothing', async (t) => {
  const source = await sourceFor(t);
  source.add('a', '2026-01-01T00:00:01Z');
  const { hub } = await hubFor(t);
  await hub.addBridgedSource('src', source.baseUrl + '/capabilitylist.xml', { intervalMs: 100 });
  await waitFor(() => source.requestsTo('/changelist.xml').length >= 3, 'three polls');
  const later = source.requestsTo('/changelist.xml').slice(1);
  assert.ok(
    later.every((r) => r.headers['if-none-match'] === '"1"'),
    'If-None-Match with the ETag',
  );
  assert.ok(later.every((r) => r.status === 304));
  assert.ok(
    later.every((r) => r.headers['if-modified-since'] === new Date(0).toUTCString()),
    'If-Modified-Since',
  );
  const lists = source.requestsTo('/changelist/1.xml').slice(1);
  assert.ok(lists.length > 0 && lists.every((r) => r.status === 304));
});

test('bridge: a 503 with Retry-After keeps the whole origin quiet that long, and the poll then resumes', async (t) => {
  const source = await sourceFor(t);
  const { hub } = await hubFor(t);
  await hub.addBridgedSource('src', source.baseUrl + '/capabilitylist.xml', { intervalMs: 100 });
  await waitFor(
    async () =>
      (await hub.listBridgedSources())[0]?.coveredTo !== undefined || source.requests.length > 2,
    'first poll',
  );
  let refused = 0;
  source.script = (path) =>
    path === '/changelist.xml' && refused++ === 0
      ? { status: 503, headers: { 'retry-after': '2' } }
      : undefined;
  await waitFor(() => source.requests.some((r) => r.status === 503), '503 answered');
  const refusedAt = source.requests.find((r) => r.status === 503)!.at;
  await waitFor(() => source.requests.some((r) => r.at > refusedAt), 'next request', 10_000);
  const next = source.requests.find((r) => r.at > refusedAt)!;
  assert.ok(
    next.at - refusedAt >= 1_900,
    `next request ${next.at - refusedAt} ms after the 503, Retry-After said 2 s`,
  );
  const s = await waitFor(async () => (await hub.listBridgedSources())[0], 'view');
  assert.equal(s.name, 'src');
});

test('bridge: one request at a time per Source origin, however many bridged Sources live there', async (t) => {
  const source = await sourceFor(t);
  const { hub } = await hubFor(t);
  // Three bridged Sources on one origin, each polled every 100 ms: requests would overlap without the queue.
  for (const name of ['a', 'b', 'c'])
    await hub.addBridgedSource(name, `${source.baseUrl}/capabilitylist.xml`, { intervalMs: 100 });
  await waitFor(() => source.requests.length >= 30, 'thirty requests');
  await hub.close();
  assert.equal(source.maxInFlight, 1);
  assert.equal(
    hub.bridgeRequestsTo(source.baseUrl),
    source.requests.length,
    'every request the Source saw came through the queue',
  );
});

test('bridge: the outbound guard refuses a private Source unless allowed; nothing is requested', async (t) => {
  const source = await sourceFor(t);
  const { hub } = await hubFor(t, { allowPrivateNetworks: false });
  await hub.addBridgedSource('private', `${source.baseUrl}/capabilitylist.xml`, {
    intervalMs: 100,
  });
  const s = await waitFor(
    async () => (await hub.listBridgedSources())[0]?.lastError,
    'poll failure recorded',
  );
  assert.match(s, /private|loopback|special/);
  assert.equal(source.requests.length, 0);
});

test('bridge: a Change List above the size limit is refused with a clear error', async (t) => {
  const source = await sourceFor(t);
  for (let i = 0; i < 50; i++)
    source.add(`r${i}`, `2026-01-01T00:00:${String(i).padStart(2, '0')}Z`);
  const { hub } = await hubFor(t, { bridge: { maxDocumentBytes: 2_000 } });
  await hub.addBridgedSource('big', `${source.baseUrl}/capabilitylist.xml`, { intervalMs: 100 });
  const err = await waitFor(
    async () => (await hub.listBridgedSources())[0]?.lastError,
    'size error recorded',
  );
  assert.match(err, /2000/);
});

test('bridge: lookup endpoint and the bridged topic URL (RT-2 Link headers, RT-3 latest payload)', async (t) => {
  const source = await sourceFor(t);
  source.add('a');
  const { hub } = await hubFor(t);
  await hub.addBridgedSource('src', source.baseUrl, { intervalMs: 100 });
  await waitFor(async () => (await hub.listBridgedSources())[0]?.changeListUrl, 'discovered');
  for (const asked of [
    source.baseUrl,
    `${source.baseUrl}/capabilitylist.xml`,
    `${source.baseUrl}/changelist.xml`,
  ]) {
    const a = await get(`${hub.url}/bridge?source=${encodeURIComponent(asked)}`);
    assert.equal(a.status, 200, asked);
    assert.deepEqual(
      {
        ...JSON.parse(a.text),
        pollIntervalMs: undefined,
        capabilityList: undefined,
        changeList: undefined,
        source: undefined,
      },
      {
        name: 'src',
        hub: hub.url,
        topic: `${hub.url}/bridge/src`,
        pollIntervalMs: undefined,
        capabilityList: undefined,
        changeList: undefined,
        source: undefined,
      },
    );
  }
  assert.equal(
    (await get(`${hub.url}/bridge?source=${encodeURIComponent('http://elsewhere.example/')}`))
      .status,
    404,
  );
  const topic = await get(`${hub.url}/bridge/src`);
  assert.equal(topic.status, 200);
  assert.match(String(topic.headers['content-type']), /^application\/xml/);
  assert.match(String(topic.headers.link), new RegExp(`<${hub.url}/bridge/src>; rel="self"`));
  assert.match(String(topic.headers.link), new RegExp(`<${hub.url}>; rel="hub"`));
  source.add('b');
  await waitFor(
    async () => (await get(`${hub.url}/bridge/src`)).text.includes('/r/b'),
    'the topic serves the newest notification',
  );
  assert.equal((await get(`${hub.url}/bridge/nope`)).status, 404);
});

test('bridge: a restarted hub resumes from its last committed poll: every change delivered once, in order', async (t) => {
  const source = await sourceFor(t);
  source.add('a');
  const dir = await tempDir(t);
  const options = {
    host: '127.0.0.1',
    dbFile: join(dir, 'hub.db'),
    allowPrivateNetworks: true,
    logLevel: 'silent',
    leaseMinSeconds: 1,
  } as const;
  let hub = await startHub({ ...options, port: 0 });
  const port = hub.port;
  t.after(() => hub.close());
  const view = await hub.addBridgedSource('src', `${source.baseUrl}/capabilitylist.xml`, {
    intervalMs: 100,
  });
  await waitFor(async () => (await hub.listBridgedSources())[0]?.coveredTo, 'first poll');
  const receiver = await receiverFor(t);
  await subscribe(hub, receiver, view.topic, '/cb');
  const expected: string[] = [];
  const change = (name: string) => {
    source.add(name);
    expected.push(`${source.baseUrl}/r/${name}`);
  };
  const received = () =>
    receiver
      .deliveriesTo('/cb')
      .flatMap((d) => parseChangeNotification(d.body.toString('utf8')).entries.map((e) => e.loc));
  for (let i = 0; i < 5; i++) {
    change(`x${i}`);
    await new Promise((r) => setTimeout(r, 60));
  }
  await hub.close();
  // Changes while the hub is down come from the lists on its first poll after the restart.
  for (let i = 0; i < 5; i++) change(`y${i}`);
  hub = await startHub({ ...options, port });
  for (let i = 0; i < 5; i++) {
    change(`z${i}`);
    await new Promise((r) => setTimeout(r, 60));
  }
  await waitFor(() => received().length >= expected.length, 'every change delivered');
  await new Promise((r) => setTimeout(r, 400)); // a few more polls: nothing may come twice
  assert.deepEqual(received(), expected);
  const bodies = receiver
    .deliveriesTo('/cb')
    .map((d) => parseChangeNotification(d.body.toString('utf8')));
  for (let i = 1; i < bodies.length; i++)
    assert.equal(
      bodies[i]!.from.lexical,
      bodies[i - 1]!.until.lexical,
      `notification ${i} contiguous (RN-5)`,
    );
});
