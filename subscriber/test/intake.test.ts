// Subscriber-side WebSub tests for the callback endpoint, over real HTTP with a real SQLite store.
// The "hub" here is the test itself speaking HTTP: it needs to send cases a real hub never sends
// (wrong signature, no signature, verification for the wrong topic).
import { changeNotificationXml } from '@rsnotify/service-kit/testing';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { request } from 'undici';
import pino from 'pino';
import { SIGNATURE_SLICE_BYTES, signatureHeader } from '@rsnotify/shared';
import { callbackToken, createIntake } from '../src/intake/index.js';
import { createMetrics } from '../src/observability/index.js';
import { openSqliteStore, type SubscriptionRecord } from '../src/store/index.js';
import { DEFAULT_LEASE_POLICY } from '../src/subscription/index.js';

const TOPIC = 'http://source.test/topic';

async function setup(
  t: { after: (fn: () => Promise<void> | void) => void },
  opts: { maxBodyBytes?: number; logLines?: string[] } = {},
) {
  const dir = await mkdtemp(join(tmpdir(), 'rsn-intake-'));
  const file = join(dir, 'subscriber.db');
  const repo = openSqliteStore({ file });
  const source = await repo.ensureSource('s', 'http://source.test/');
  const delivered: { sourceId: number; id: number; body: Buffer }[] = [];
  const changed: SubscriptionRecord[] = [];
  const metrics = createMetrics();
  const intake = createIntake({
    repo,
    logger: opts.logLines
      ? pino(
          { level: 'info' },
          new Writable({
            write(chunk: Buffer, _enc, done) {
              opts.logLines!.push(chunk.toString());
              done();
            },
          }),
        )
      : pino({ level: 'silent' }),
    metrics,
    clock: Date.now,
    leasePolicy: DEFAULT_LEASE_POLICY,
    maxBodyBytes: opts.maxBodyBytes ?? 1024 * 1024,
    basePath: '',
    sourceName: () => 's',
    onDelivered: (sourceId, id, body) => delivered.push({ sourceId, id, body }),
    onSubscriptionChanged: (rec) => changed.push(rec),
  });
  const server = createServer(intake.listener);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.after(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await repo.close();
    await rm(dir, { recursive: true, force: true });
  });
  let n = 0;
  const addSub = (p: Partial<SubscriptionRecord> = {}) => {
    const token = `tok${++n}x${Math.random().toString(36).slice(2)}`;
    return repo.insertSubscription({
      sourceId: source.id,
      hub: 'http://hub.test/',
      topic: TOPIC,
      callbackToken: token,
      callbackUrl: `${base}/callback/${token}`,
      secret: 'the-secret',
      state: 'pending-subscribe',
      requestedAt: Date.now(),
      attempt: 1,
      requestedLeaseSeconds: 600,
      ...p,
    });
  };
  const get = async (path: string, q: Record<string, string>) => {
    const res = await request(`${base}${path}?${new URLSearchParams(q).toString()}`);
    return {
      status: res.statusCode,
      body: await res.body.text(),
      type: res.headers['content-type'],
    };
  };
  const post = async (
    path: string,
    body: string | Buffer,
    headers: Record<string, string> = {},
  ) => {
    const res = await request(`${base}${path}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/xml', ...headers },
    });
    return { status: res.statusCode, body: await res.body.text() };
  };
  return { repo, file, base, delivered, changed, metrics, addSub, get, post };
}

const PAYLOAD = changeNotificationXml({
  from: '2020-01-01T00:00:00Z',
  until: '2020-01-01T00:00:01Z',
  entries: [],
});

test('WS-8: a pending subscribe is confirmed with exactly the challenge as text/plain', async (t) => {
  const h = await setup(t);
  const sub = await h.addSub();
  const res = await h.get(`/callback/${sub.callbackToken}`, {
    'hub.mode': 'subscribe',
    'hub.topic': TOPIC,
    'hub.challenge': 'ch4ll3nge \u00e9',
    'hub.lease_seconds': '321',
  });
  assert.equal(res.status, 200);
  assert.equal(res.body, 'ch4ll3nge \u00e9');
  assert.match(String(res.type), /^text\/plain/);
  const after = await h.repo.findSubscriptionByToken(sub.callbackToken);
  assert.equal(after?.state, 'active');
  // WS-9: the granted lease is recorded, measured from the verification.
  assert.equal(after?.leaseSeconds, 321);
  assert.ok(after!.leaseExpiresAt! - after!.verifiedAt! === 321_000);
  assert.equal(h.changed.length, 1);
});

test('WS-8: mismatched topic, wrong mode, unknown callback or a non-pending subscription get 404', async (t) => {
  const h = await setup(t);
  const sub = await h.addSub();
  const active = await h.addSub({ state: 'active' });
  const cases: [string, Record<string, string>][] = [
    [
      `/callback/${sub.callbackToken}`,
      {
        'hub.mode': 'subscribe',
        'hub.topic': 'http://source.test/other',
        'hub.challenge': 'x',
        'hub.lease_seconds': '5',
      },
    ],
    [
      `/callback/${sub.callbackToken}`,
      { 'hub.mode': 'unsubscribe', 'hub.topic': TOPIC, 'hub.challenge': 'x' },
    ],
    [
      '/callback/unknown-token',
      {
        'hub.mode': 'subscribe',
        'hub.topic': TOPIC,
        'hub.challenge': 'x',
        'hub.lease_seconds': '5',
      },
    ],
    [
      `/callback/${active.callbackToken}`,
      {
        'hub.mode': 'subscribe',
        'hub.topic': TOPIC,
        'hub.challenge': 'x',
        'hub.lease_seconds': '5',
      },
    ],
  ];
  for (const [path, q] of cases) {
    const res = await h.get(path, q);
    assert.equal(res.status, 404, JSON.stringify(q));
    assert.notEqual(res.body, 'x');
  }
  assert.equal(
    (await h.repo.findSubscriptionByToken(sub.callbackToken))?.state,
    'pending-subscribe',
  );
});

test('WS-10: hub.mode=denied is answered 2xx and recorded with its reason', async (t) => {
  const h = await setup(t);
  const sub = await h.addSub();
  const res = await h.get(`/callback/${sub.callbackToken}`, {
    'hub.mode': 'denied',
    'hub.topic': TOPIC,
    'hub.reason': 'topic not allowed',
  });
  assert.equal(res.status, 200);
  const rec = await h.repo.findSubscriptionByToken(sub.callbackToken);
  assert.equal(rec?.state, 'denied');
  assert.equal(rec?.deniedReason, 'topic not allowed');
});

test('WS-19/WS-9: a pending unsubscribe is confirmed (lease ignored); afterwards deliveries get 410 (WS-12)', async (t) => {
  const h = await setup(t);
  const sub = await h.addSub({ state: 'pending-unsubscribe', leaseExpiresAt: 123 });
  // Until the hub confirms, deliveries are still taken (and the callback's record is cached).
  const before = await h.post(`/callback/${sub.callbackToken}`, PAYLOAD, {
    'x-hub-signature': signatureHeader('sha256', 'the-secret', PAYLOAD),
  });
  assert.equal(before.status, 202);
  const res = await h.get(`/callback/${sub.callbackToken}`, {
    'hub.mode': 'unsubscribe',
    'hub.topic': TOPIC,
    'hub.challenge': 'bye',
    'hub.lease_seconds': '999',
  });
  assert.equal(res.status, 200);
  assert.equal(res.body, 'bye');
  const rec = await h.repo.findSubscriptionByToken(sub.callbackToken);
  assert.equal(rec?.state, 'unsubscribed');
  assert.equal(rec?.leaseExpiresAt, 123);
  const del = await h.post(`/callback/${sub.callbackToken}`, PAYLOAD, {
    'x-hub-signature': signatureHeader('sha256', 'the-secret', PAYLOAD),
  });
  // The confirmation dropped the cached record at once: no 202 from a stale state.
  assert.equal(del.status, 410);
});

test('WS-11/WS-14: a correctly signed delivery is stored raw in the inbox before the 2xx', async (t) => {
  const h = await setup(t);
  const sub = await h.addSub({ state: 'active' });
  for (const method of ['sha1', 'sha256', 'sha384', 'sha512'] as const) {
    const body = PAYLOAD.replace('00:00:01Z', `00:00:0${method.length}Z`);
    const res = await h.post(`/callback/${sub.callbackToken}`, body, {
      'x-hub-signature': signatureHeader(method, 'the-secret', body)
        .toUpperCase()
        .replace(method.toUpperCase(), method),
    });
    assert.equal(res.status, 202, method);
    // Read through a second connection right after the answer: the row must already be committed.
    const other = new Database(h.file, { readonly: true });
    const row = other
      .prepare('SELECT body, signature FROM inbox ORDER BY id DESC LIMIT 1')
      .get() as { body: Buffer; signature: string };
    other.close();
    assert.equal(row.body.toString(), body);
    assert.equal(row.signature, 'ok');
  }
});

test('WS-16: an unsigned delivery on a subscription with a secret gets 403 (not 2xx, not 410) and is not stored', async (t) => {
  const h = await setup(t);
  const sub = await h.addSub({ state: 'active' });
  const res = await h.post(`/callback/${sub.callbackToken}`, PAYLOAD);
  assert.equal(res.status, 403);
  assert.equal((await h.repo.listOpenInbox(sub.sourceId)).length, 0);
});

test('WS-15: a wrong signature is answered 2xx but ignored and counted', async (t) => {
  const h = await setup(t);
  const sub = await h.addSub({ state: 'active' });
  const wrong = await h.post(`/callback/${sub.callbackToken}`, PAYLOAD, {
    'x-hub-signature': signatureHeader('sha256', 'another-secret', PAYLOAD),
  });
  assert.equal(wrong.status, 202);
  const tampered = await h.post(`/callback/${sub.callbackToken}`, PAYLOAD + ' ', {
    'x-hub-signature': signatureHeader('sha256', 'the-secret', PAYLOAD),
  });
  assert.equal(tampered.status, 202);
  const malformed = await h.post(`/callback/${sub.callbackToken}`, PAYLOAD, {
    'x-hub-signature': 'md5=abc',
  });
  assert.equal(malformed.status, 202);
  assert.equal((await h.repo.listOpenInbox(sub.sourceId)).length, 0);
  assert.equal(h.delivered.length, 0);
  assert.equal((await h.repo.getSource('s'))?.ignoredDeliveries, 3);
});

test('WS-14/WS-15: a body over SIGNATURE_SLICE_BYTES is checked in slices: signed right it is stored whole, signed wrong or cut it is ignored', async (t) => {
  const h = await setup(t, { maxBodyBytes: 4 * SIGNATURE_SLICE_BYTES });
  const sub = await h.addSub({ state: 'active' });
  // A notification of 2.5 slices (the last partial): entries are padded out with a long <loc>.
  const entries = Array.from({ length: 1200 }, (_, i) => ({
    loc: `http://source.test/r/${i}/${'p'.repeat(2000)}`,
    change: 'updated' as const,
    datetime: '2020-01-01T00:00:00Z',
  }));
  const body = Buffer.from(
    changeNotificationXml({ from: '2020-01-01T00:00:00Z', until: '2020-01-01T00:00:01Z', entries }),
  );
  assert.ok(body.length > 2 * SIGNATURE_SLICE_BYTES && body.length < 3 * SIGNATURE_SLICE_BYTES);
  const url = `/callback/${sub.callbackToken}`;
  const right = await h.post(url, body, {
    'x-hub-signature': signatureHeader('sha384', 'the-secret', body),
  });
  assert.equal(right.status, 202);
  assert.equal(h.delivered.length, 1);
  assert.ok(h.delivered[0]!.body.equals(body), 'stored whole');
  const wrong = await h.post(url, body, {
    'x-hub-signature': signatureHeader('sha384', 'another-secret', body),
  });
  const cut = await h.post(url, body, {
    'x-hub-signature': signatureHeader(
      'sha384',
      'the-secret',
      body.subarray(0, SIGNATURE_SLICE_BYTES),
    ),
  });
  assert.deepEqual([wrong.status, cut.status], [202, 202]);
  assert.equal(h.delivered.length, 1, 'neither is stored');
  assert.equal((await h.repo.getSource('s'))?.ignoredDeliveries, 2);
});

test('WS-13: the subscription is identified by the callback URL, not by the Link header', async (t) => {
  const h = await setup(t);
  const sub = await h.addSub({ state: 'active', secret: undefined });
  const res = await h.post(`/callback/${sub.callbackToken}`, PAYLOAD, {
    link: '<http://elsewhere.test/topic>; rel="self", <http://evil.test/hub>; rel="hub"',
  });
  assert.equal(res.status, 202);
  const open = await h.repo.listOpenInbox(sub.sourceId);
  assert.equal(open.length, 1);
  assert.equal(open[0]!.subscriptionId, sub.id);
  assert.equal(open[0]!.signature, 'unsigned');
  // Processing is told after the answer (WS-11): wait for it.
  for (let i = 0; i < 100 && h.delivered.length === 0; i++)
    await new Promise((r) => setTimeout(r, 10));
  assert.equal(h.delivered[0]?.id, open[0]!.id);
});

test('unknown callbacks get 404; oversized bodies get 413', async (t) => {
  const h = await setup(t, { maxBodyBytes: 1000 });
  assert.equal((await h.post('/callback/nope', PAYLOAD)).status, 404);
  const sub = await h.addSub({ state: 'active', secret: undefined });
  assert.equal((await h.post(`/callback/${sub.callbackToken}`, 'x'.repeat(5000))).status, 413);
  assert.equal((await h.repo.listOpenInbox(sub.sourceId)).length, 0);
});

test('callbackToken: a delivery POST goes to the endpoint when its path is the prefix and one segment (table)', () => {
  const rows: [string | undefined, string, string | undefined][] = [
    ['/callback/tok', '/callback/', 'tok'],
    ['/callback/tok?from=query', '/callback/', 'tok'],
    ['http://127.0.0.1:8082/callback/tok', '/callback/', 'tok'],
    ['/sub/callback/tok', '/sub/callback/', 'tok'],
    ['/callback/tok', '/sub/callback/', undefined],
    ['/callback/to%6B', '/callback/', 'tok'], // decoded as the router decodes a parameter
    ['/callback/to%zz', '/callback/', 'to%zz'], // undecodable: left as it came
    ['/callback/', '/callback/', undefined],
    ['/callback/tok/', '/callback/', undefined],
    ['/callback/tok/more', '/callback/', undefined],
    ['/callbacks/tok', '/callback/', undefined],
    ['*', '/callback/', undefined],
    [undefined, '/callback/', undefined],
  ];
  for (const [url, prefix, token] of rows)
    assert.equal(callbackToken(url, prefix), token, `${String(url)} under ${prefix}`);
});

test('the store failing outside the inbox write (the lookup): 503, nothing stored, delivery.failed logged', async (t) => {
  const logLines: string[] = [];
  const h = await setup(t, { logLines });
  const sub = await h.addSub({ state: 'active', secret: undefined });
  await h.repo.close();
  const res = await h.post(`/callback/${sub.callbackToken}`, PAYLOAD);
  assert.equal(res.status, 503);
  assert.equal(res.body, 'could not store');
  assert.equal(h.delivered.length, 0);
  const failed = logLines.map((l) => JSON.parse(l) as Record<string, unknown>);
  const line = failed.find((l) => l.event === 'delivery.failed');
  assert.ok(line, `no delivery.failed line in ${JSON.stringify(failed)}`);
  assert.equal(line.level, 50); // error
  assert.ok(!JSON.stringify(failed).includes(sub.callbackToken), 'the callback token was logged');
});
