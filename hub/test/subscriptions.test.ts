// Subscription requests against the real hub (127.0.0.1, real SQLite file, real HTTP callbacks):
// validation, the 202 answer and the verification request it leads to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  activeCount,
  hubFor,
  linkHeader,
  notificationXml,
  postForm,
  publish,
  receiverFor,
  waitFor,
} from './helpers.js';

const TOPIC = 'http://source.test/changes';

test('WH-1, WH-3, RT-8, RT-9, RT-10, WH-11: 202, then a GET with mode, topic as given, a fresh challenge and the lease', async (t) => {
  const { hub } = await hubFor(t, { leaseDefaultSeconds: 3600 });
  const r = await receiverFor(t);
  const a = await postForm(hub.url, {
    'hub.mode': 'subscribe',
    'hub.topic': TOPIC,
    'hub.callback': r.url('/one'),
    'hub.lease_seconds': '1200',
  });
  assert.equal(a.status, 202);
  const [v] = await waitFor(
    () => (r.verificationsTo('/one').length ? r.verificationsTo('/one') : undefined),
    'verification',
  );
  assert.equal(v!.query.get('hub.mode'), 'subscribe');
  assert.equal(v!.query.get('hub.topic'), TOPIC);
  assert.equal(v!.query.get('hub.lease_seconds'), '1200');
  const c1 = v!.query.get('hub.challenge')!;
  assert.ok(c1.length >= 16, 'a random challenge');
  // A second request gets a different challenge (WH-11: SHOULD be single-use).
  await postForm(hub.url, {
    'hub.mode': 'subscribe',
    'hub.topic': TOPIC,
    'hub.callback': r.url('/one'),
  });
  await waitFor(() => r.verificationsTo('/one').length === 2, 'second verification');
  assert.notEqual(r.verificationsTo('/one')[1]!.query.get('hub.challenge'), c1);
  assert.equal(
    r.verificationsTo('/one')[1]!.query.get('hub.lease_seconds'),
    '3600',
    'WH-13: the default applies when none is requested',
  );
});

test('WH-3: the answer is 202 even when verification will fail, and nothing is subscribed', async (t) => {
  const { hub } = await hubFor(t);
  const r = await receiverFor(t);
  r.verify = 'not-found';
  const a = await postForm(hub.url, {
    'hub.mode': 'subscribe',
    'hub.topic': TOPIC,
    'hub.callback': r.url('/nope'),
  });
  assert.equal(a.status, 202);
  await waitFor(() => r.verificationsTo('/nope').length === 1, 'verification attempt');
  const { token } = await hub.addSource('src', ['http://source.test/']);
  assert.equal(
    (
      await publish(hub.url, notificationXml('x'), {
        link: linkHeader(TOPIC, hub.url),
        authorization: `Bearer ${token}`,
      })
    ).status,
    200,
  );
  await new Promise((res) => setTimeout(res, 300));
  assert.equal(r.deliveries.length, 0);
  assert.equal(await activeCount(hub), 0);
});

test('WH-4: request errors get a 4xx with a plain-text reason', async (t) => {
  const { hub } = await hubFor(t);
  const rows: [Record<string, string> | string, RegExp][] = [
    [{ 'hub.topic': TOPIC, 'hub.callback': 'http://127.0.0.1:1/cb' }, /hub\.mode is missing/],
    [{ 'hub.mode': 'subscribe', 'hub.callback': 'http://127.0.0.1:1/cb' }, /hub\.topic is missing/],
    [{ 'hub.mode': 'subscribe', 'hub.topic': TOPIC }, /hub\.callback is missing/],
    [
      {
        'hub.mode': 'subscribe',
        'hub.topic': 'not a url',
        'hub.callback': 'http://127.0.0.1:1/cb',
      },
      /hub\.topic is not an absolute URL/,
    ],
    [
      { 'hub.mode': 'explode', 'hub.topic': TOPIC, 'hub.callback': 'http://127.0.0.1:1/cb' },
      /hub\.mode must be/,
    ],
    ['%%%&&&===', /hub\.mode is missing/], // a malformed form body
  ];
  for (const [params, reason] of rows) {
    const a = await postForm(hub.url, params);
    assert.equal(a.status, 400, JSON.stringify(params));
    assert.match(String(a.headers['content-type']), /^text\/plain/);
    assert.match(a.text, reason);
  }
});

test('WH-8: a secret of 200 bytes or more is refused with 400', async (t) => {
  const { hub } = await hubFor(t);
  const r = await receiverFor(t);
  const a = await postForm(hub.url, {
    'hub.mode': 'subscribe',
    'hub.topic': TOPIC,
    'hub.callback': r.url('/s'),
    'hub.secret': 'x'.repeat(200),
  });
  assert.equal(a.status, 400);
  assert.match(a.text, /200 bytes/);
  assert.equal(r.verifications.length, 0);
});

test('WH-4, promise 4: a callback on a private address is refused unless private networks are allowed', async (t) => {
  const { hub } = await hubFor(t, { allowPrivateNetworks: false });
  const a = await postForm(hub.url, {
    'hub.mode': 'subscribe',
    'hub.topic': TOPIC,
    'hub.callback': 'http://127.0.0.1:9/cb',
  });
  assert.equal(a.status, 400);
  assert.match(a.text, /refus/);
  const b = await postForm(hub.url, {
    'hub.mode': 'subscribe',
    'hub.topic': TOPIC,
    'hub.callback': 'http://10.1.2.3/cb',
  });
  assert.equal(b.status, 400);
});

test('WH-6, WH-7, WH-15: unreserved characters decoded, callback query preserved in verification and delivery', async (t) => {
  const { hub } = await hubFor(t);
  const r = await receiverFor(t);
  const { token } = await hub.addSource('src', ['http://source.test/']);
  const a = await postForm(hub.url, {
    'hub.mode': 'subscribe',
    'hub.topic': 'http://source.test/%7Echanges',
    'hub.callback': `${r.url('/q')}?sub=42&hub.extra=keep`,
  });
  assert.equal(a.status, 202);
  const [v] = await waitFor(
    () => (r.verificationsTo('/q').length ? r.verificationsTo('/q') : undefined),
    'verification',
  );
  assert.ok(v!.path.startsWith('/q?sub=42&hub.extra=keep&hub.mode=subscribe'), v!.path);
  assert.equal(
    v!.query.get('hub.topic'),
    'http://source.test/%7Echanges',
    'WH-11: hub.topic exactly as given',
  );
  await waitFor(async () => (await activeCount(hub)) === 1, 'active');
  // Published under the decoded form: the same channel (WH-6, M-6).
  assert.equal(
    (
      await publish(hub.url, notificationXml('q'), {
        link: linkHeader('http://source.test/~changes', hub.url),
        authorization: `Bearer ${token}`,
      })
    ).status,
    200,
  );
  const [d] = await waitFor(
    () => (r.deliveriesTo('/q').length ? r.deliveriesTo('/q') : undefined),
    'delivery',
  );
  assert.equal(
    d!.path,
    '/q?sub=42&hub.extra=keep',
    'WH-15: POST to the exact callback, query string in the URL',
  );
});
