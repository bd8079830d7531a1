// Secrets in logs and CLI output: a subscriber's callback path is a capability, so no log line of
// the hub and no `rsnotify-hub subscriptions` line shows it unless --show-callbacks asks for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { startHub } from '@rsnotify/hub';
import { createLogger } from '../src/observability/logger.js';
import {
  linkHeader,
  notificationXml,
  postForm,
  publish,
  receiverFor,
  runHubCli,
  subscribe,
  tempDir,
  uniqueName,
  waitFor,
} from './helpers.js';

const TOPIC = 'http://source.test/redact/topic';
const CAPABILITY = 'cap-9f3a7c1e5d2b4a68';

test('no hub log line contains a callback path; callbacks show origin and a path hash', async (t) => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const dir = await tempDir(t);
  const dbFile = join(dir, 'hub.db');
  const hub = await startHub({
    host: '127.0.0.1',
    port: 0,
    dbFile,
    allowPrivateNetworks: true,
    leaseMinSeconds: 1,
    checkTopics: false,
    retry: { initialDelayMs: 100, maxDelayMs: 200 },
    logger: createLogger('debug', sink),
  });
  t.after(() => hub.close());
  const receiver = await receiverFor(t);
  const { token } = await hub.addSource(uniqueName('src'), ['http://source.test/redact/']);
  const path = `/callback/${CAPABILITY}?k=${CAPABILITY}`;
  await subscribe(hub, receiver, TOPIC, path, { 'hub.secret': 'a-secret-of-sixteen+' });
  const headers = { authorization: `Bearer ${token}`, link: linkHeader(TOPIC, hub.url) };
  assert.equal((await publish(hub.url, notificationXml('one'), headers)).status, 200);
  await waitFor(() => receiver.deliveriesTo('/callback/').length === 1, 'first delivery');
  // A failing delivery, a refused subscription and an unsubscription log the callback too.
  receiver.deliver = 500;
  assert.equal((await publish(hub.url, notificationXml('two'), headers)).status, 200);
  await waitFor(() => lines.some((l) => l.includes('"delivery.failed"')), 'delivery.failed logged');
  receiver.deliver = 200;
  await postForm(hub.url, {
    'hub.mode': 'subscribe',
    'hub.topic': TOPIC,
    'hub.callback': `ftp://127.0.0.1/${CAPABILITY}`,
  });
  await postForm(hub.url, {
    'hub.mode': 'unsubscribe',
    'hub.topic': TOPIC,
    'hub.callback': receiver.url(path),
  });
  await waitFor(
    () => lines.some((l) => l.includes('"subscription.unsubscribed"')),
    'unsubscription logged',
  );

  const events = new Set(lines.map((l) => (JSON.parse(l) as { event?: string }).event));
  for (const e of [
    'subscription.requested',
    'subscription.verified',
    'delivery.failed',
    'subscription.unsubscribed',
  ]) {
    assert.ok(events.has(e), `expected a ${e} line`);
  }
  const leaking = lines.filter(
    (l) => l.includes(CAPABILITY) || l.includes(token) || l.includes('a-secret-of-sixteen'),
  );
  assert.deepEqual(leaking, []);
  const withCallback = lines
    .map((l) => JSON.parse(l) as { callback?: string })
    .filter((o) => o.callback !== undefined);
  assert.ok(withCallback.length >= 4);
  for (const o of withCallback)
    assert.match(o.callback!, /^(https?|ftp):\/\/127\.0\.0\.1(:\d+)?\/\[path:[0-9a-f]{12}\]$/);
});

test('rsnotify-hub subscriptions shows callbacks redacted unless --show-callbacks is given', async (t) => {
  const dir = await tempDir(t);
  const dbFile = join(dir, 'hub.db');
  const hub = await startHub({
    host: '127.0.0.1',
    port: 0,
    dbFile,
    allowPrivateNetworks: true,
    logLevel: 'silent',
    checkTopics: false,
  });
  t.after(() => hub.close());
  const receiver = await receiverFor(t);
  await subscribe(hub, receiver, TOPIC, `/callback/${CAPABILITY}`);
  const plain = await runHubCli(['subscriptions', '--db', dbFile]);
  assert.equal(plain.code, 0);
  assert.equal(plain.lines.length, 1);
  assert.ok(!plain.lines[0]!.includes(CAPABILITY), plain.lines[0]);
  assert.match(
    (JSON.parse(plain.lines[0]!) as { callback: string }).callback,
    /\/\[path:[0-9a-f]{12}\]$/,
  );
  const full = await runHubCli(['subscriptions', '--db', dbFile, '--show-callbacks']);
  assert.equal(
    (JSON.parse(full.lines[0]!) as { callback: string }).callback,
    receiver.url(`/callback/${CAPABILITY}`),
  );
});
