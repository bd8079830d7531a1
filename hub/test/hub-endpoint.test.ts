// The hub endpoint is served beside the Hono app (hub-endpoint.ts, routed by listener/serve.ts):
// every POST to the hub path reaches it, whatever form its request target takes, every other
// request reaches the app, and what it refuses is recorded for the console like the app's refusals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { adminApi, adminTokenFor } from './admin-helpers.js';
import { hubFor, receiverFor, waitFor } from './helpers.js';
import { rawRequest } from './raw-http.js';

test('a POST to the hub path reaches the hub endpoint with a query string or an absolute target; other requests reach the app', async (t) => {
  const { hub } = await hubFor(t, { checkTopics: false });
  const receiver = await receiverFor(t);
  const form = (callback: string) =>
    new URLSearchParams({
      'hub.mode': 'subscribe',
      'hub.topic': 'http://source.test/changes',
      'hub.callback': callback,
    }).toString();
  const origin = new URL(hub.url).origin;

  const withQuery = await request(`${origin}/hub?from=query`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form(receiver.url('/cb/query')),
  });
  assert.equal(withQuery.statusCode, 202);
  assert.equal(await withQuery.body.text(), 'accepted; verification of intent follows\n');
  assert.equal(withQuery.headers['content-type'], 'text/plain; charset=UTF-8');

  // RFC 9112 §3.2.2: a server accepts the absolute form of a request target.
  const body = form(receiver.url('/cb/absolute'));
  const absolute = await rawRequest(
    hub.port,
    `POST http://127.0.0.1:${hub.port}/hub HTTP/1.1\r\nHost: 127.0.0.1:${hub.port}\r\n` +
      `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
  );
  assert.equal(absolute.status, 202, absolute.head);
  await waitFor(
    async () => (receiver.verifications.length >= 2 ? true : undefined),
    'both subscriptions verified',
  );

  const page = await request(`${origin}/hub`);
  assert.equal(page.statusCode, 200);
  assert.match(await page.body.text(), /POST subscription requests and notifications here/);
  const put = await request(`${origin}/hub`, { method: 'PUT', body: 'x' });
  assert.equal(put.statusCode, 404);
  await put.body.dump();
  // Only the hub path itself: a trailing slash is another path (the app answers 404).
  const slash = await request(`${origin}/hub/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form(receiver.url('/cb/slash')),
  });
  assert.equal(slash.statusCode, 404);
  await slash.body.dump();
});

test("the hub endpoint's refusals, framing ones included, are recorded for the console", async (t) => {
  const { hub, dbFile } = await hubFor(t, { checkTopics: false });
  const api = adminApi(hub, await adminTokenFor(dbFile));
  const unsupported = await request(hub.url, {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: 'hello',
  });
  assert.equal(unsupported.statusCode, 415);
  await unsupported.body.dump();
  const twoHosts = await rawRequest(
    hub.port,
    `POST /hub HTTP/1.1\r\nHost: 127.0.0.1:${hub.port}\r\nHost: evil.test\r\n` +
      'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 0\r\n\r\n',
  );
  assert.equal(twoHosts.status, 400);
  const unsigned = await request(hub.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/xml',
      link: '<http://source.test/changes>; rel="self", <http://hub.test/hub>; rel="hub"',
    },
    body: '<urlset/>',
  });
  // No Source owns the topic and publishing is not open: RT-5.
  assert.equal(unsigned.statusCode, 403);
  await unsigned.body.dump();

  type Rejection = { status: number; kind: string; reason: string };
  const listed = await waitFor(async () => {
    const { data } = await api<{ rejections: Rejection[] }>('GET', '/rejections');
    return data.rejections.length >= 3 ? data.rejections : undefined;
  }, 'three rejections listed');
  const seen = listed.map((r) => `${r.status} ${r.kind}`).sort();
  assert.deepEqual(seen, ['400 hub request', '403 notification', '415 request']);
  assert.ok(
    listed.some((r) => r.status === 400 && r.reason === 'more than one Host header'),
    JSON.stringify(listed),
  );
});
