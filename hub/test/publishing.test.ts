// Publish intake against the real hub: the ResourceSync fat POST (RT-4, RT-7, M-1, M-4, M-5),
// hub.mode=publish (WH-21), multi-tenancy (RT-5) and hostile input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import {
  hubFor,
  linkHeader,
  metricValue,
  notificationXml,
  postForm,
  publish,
  receiverFor,
  subscribe,
  waitFor,
} from './helpers.js';

const TOPIC = 'http://source.test/changes';

test("RT-4, RT-7, M-2: a valid notification with the Source's token is answered 200 (not 202)", async (t) => {
  const { hub } = await hubFor(t);
  const { token } = await hub.addSource('src', ['http://source.test/']);
  const a = await publish(hub.url, notificationXml('ok'), {
    link: linkHeader(TOPIC, hub.url),
    authorization: `Bearer ${token}`,
  });
  assert.equal(a.status, 200);
  assert.equal(
    await metricValue(hub, 'rsnotify_hub_notifications_accepted_total', 'kind="resourcesync"'),
    1,
  );
});

test('RT-5, RT-7: wrong, missing or foreign tokens are refused (401/403) and nothing is delivered', async (t) => {
  const { hub } = await hubFor(t);
  const r = await receiverFor(t);
  const a = await hub.addSource('alpha', ['http://alpha.test/']);
  await hub.addSource('beta', ['http://beta.test/']);
  await subscribe(hub, r, 'http://beta.test/changes', '/beta');
  const body = notificationXml('x');
  const rows: [Record<string, string>, number][] = [
    [{ link: linkHeader('http://beta.test/changes', hub.url) }, 401],
    [{ link: linkHeader('http://beta.test/changes', hub.url), authorization: 'Bearer wrong' }, 403],
    // One Source can never publish into another's channel.
    [
      { link: linkHeader('http://beta.test/changes', hub.url), authorization: `Bearer ${a.token}` },
      403,
    ],
    // A channel no Source registered.
    [
      {
        link: linkHeader('http://nobody.test/changes', hub.url),
        authorization: `Bearer ${a.token}`,
      },
      403,
    ],
    [
      { link: linkHeader('http://beta.test/changes', hub.url), authorization: `Basic ${a.token}` },
      401,
    ],
  ];
  for (const [headers, status] of rows) {
    const ans = await publish(hub.url, body, headers);
    assert.equal(ans.status, status, JSON.stringify(headers));
    assert.ok(ans.text.length > 1, 'a reason');
  }
  await new Promise((res) => setTimeout(res, 200));
  assert.equal(r.deliveries.length, 0);
});

test('RT-7, RN-1, RN-2, RN-3, M-4: bad payloads and headers get a 4xx with a reason', async (t) => {
  const { hub } = await hubFor(t, { maxBodyBytes: 64 * 1024 });
  const { token } = await hub.addSource('src', ['http://source.test/']);
  const auth = { authorization: `Bearer ${token}` };
  const link = { link: linkHeader(TOPIC, hub.url) };
  const good = notificationXml('g');
  // Raw on purpose: a DTD entity bomb, which no serializer writes.
  const bomb = `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"><rs:md capability="change-notification" from="2026-01-01T00:00:00Z" until="2026-01-01T00:00:01Z"/><url><loc>&lol2;</loc><rs:md change="updated"/></url></urlset>`;
  const rows: {
    name: string;
    body: string | Buffer;
    headers: Record<string, string>;
    status: number;
    reason?: RegExp;
  }[] = [
    { name: 'RT-4 missing Link', body: good, headers: { ...auth }, status: 400, reason: /Link/ },
    {
      name: 'RT-4 Link without rel=hub',
      body: good,
      headers: { ...auth, link: `<${TOPIC}>; rel="self"` },
      status: 400,
      reason: /rel="hub"/,
    },
    {
      name: 'RT-4 Link without rel=self',
      body: good,
      headers: { ...auth, link: `<${hub.url}>; rel="hub"` },
      status: 400,
      reason: /rel="self"/,
    },
    {
      name: 'WH-17 two rel=self',
      body: good,
      headers: {
        ...auth,
        link: `<${TOPIC}>; rel="self", <${TOPIC}2>; rel="self", <${hub.url}>; rel="hub"`,
      },
      status: 400,
    },
    {
      name: 'RT-7 malformed XML',
      // Raw on purpose: malformed.
      body: '<urlset><unclosed>',
      headers: { ...auth, ...link },
      status: 400,
    },
    {
      name: 'RN-1 wrong root',
      body: good.replace(/urlset/g, 'sitemapindex'),
      headers: { ...auth, ...link },
      status: 400,
    },
    {
      name: 'RN-2 wrong capability',
      body: good.replace('change-notification', 'changelist'),
      headers: { ...auth, ...link },
      status: 400,
    },
    {
      name: 'RN-3 no until',
      body: good.replace(/ until="[^"]*"/, ''),
      headers: { ...auth, ...link },
      status: 400,
      reason: /until/,
    },
    {
      name: 'DOCTYPE bomb',
      body: bomb,
      headers: { ...auth, ...link },
      status: 400,
      reason: /DOCTYPE/,
    },
    { name: 'empty body', body: '', headers: { ...auth, ...link }, status: 400 },
    {
      name: 'binary garbage',
      body: Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x02]),
      headers: { ...auth, ...link },
      status: 400,
    },
    {
      name: 'body over the limit: 413',
      body: notificationXml('big', 1200),
      headers: { ...auth, ...link },
      status: 413,
    },
  ];
  for (const row of rows) {
    const a = await publish(hub.url, row.body, row.headers);
    assert.equal(a.status, row.status, `${row.name}: ${a.text}`);
    if (row.reason) assert.match(a.text, row.reason, row.name);
  }
  // RT-7 [derived]: 415 for a Content-Type that is neither XML nor a form.
  const j = await request(hub.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth, ...link },
    body: '{}',
  });
  assert.equal(j.statusCode, 415);
  await j.body.dump();
  const none = await request(hub.url, {
    method: 'POST',
    headers: { ...auth, ...link },
    body: good,
  });
  assert.equal(none.statusCode, 415);
  await none.body.dump();
  // Oversized request headers get a defined 431 from the server, and the hub keeps working.
  const huge = await request(hub.url, {
    method: 'POST',
    headers: { 'content-type': 'application/xml', 'x-big': 'a'.repeat(40_000), ...auth, ...link },
    body: good,
  }).catch((e: Error) => e);
  if (!(huge instanceof Error)) {
    assert.equal(huge.statusCode, 431);
    await huge.body.dump();
  }
  assert.equal(
    (await publish(hub.url, good, { ...auth, ...link })).status,
    200,
    'still accepting after hostile input',
  );
  assert.ok((await metricValue(hub, 'rsnotify_hub_publish_rejected_total', 'reason="links"')) >= 4);
});

test('M-4, RT-15, WH-16, WH-17: body bytes, Content-Type string and Link header are relayed verbatim', async (t) => {
  const { hub } = await hubFor(t);
  const r = await receiverFor(t);
  const { token } = await hub.addSource('src', ['http://source.test/']);
  await subscribe(hub, r, TOPIC, '/v');
  // Odd but valid bytes: a BOM-less UTF-8 payload with non-ASCII, CRLFs and a comment; the hub must not re-serialise.
  const body = Buffer.from(
    notificationXml('vérbatim').replace(/\n/g, '\r\n').replace('<urlset', '<!-- é -->\r\n<urlset'),
    'utf8',
  );
  const link = `<http://source.test/capabilitylist.xml>; rel="resourcesync",   <${TOPIC}>;rel=self, <${hub.url}>; rel="hub"`;
  const ct = 'application/xml; charset=UTF-8';
  assert.equal(
    (await publish(hub.url, body, { 'content-type': ct, link, authorization: `Bearer ${token}` }))
      .status,
    200,
  );
  const [d] = await waitFor(() => (r.deliveries.length ? r.deliveries : undefined), 'delivery');
  assert.ok(d!.body.equals(body), 'identical bytes');
  assert.equal(d!.headers['content-type'], ct);
  assert.equal(d!.headers.link, link);
});

test('WH-21, M-1, WH-16, WH-17: hub.mode=publish fetches the topic and distributes it with its Content-Type', async (t) => {
  const { hub } = await hubFor(t);
  const r = await receiverFor(t);
  let version = 0;
  const topicServer = createServer((req, res) => {
    version += 1;
    res
      .writeHead(200, { 'content-type': 'application/atom+xml; charset=utf-8' })
      .end(`<feed>v${version}</feed>`);
  });
  await new Promise<void>((res) => topicServer.listen(0, '127.0.0.1', res));
  t.after(
    () =>
      new Promise<void>((res) => {
        topicServer.closeAllConnections();
        topicServer.close(() => res());
      }),
  );
  const topic = `http://127.0.0.1:${(topicServer.address() as AddressInfo).port}/feed`;
  const { token } = await hub.addSource('feeds', [topic]);
  await subscribe(hub, r, topic, '/feed');
  assert.equal(
    (await postForm(hub.url, { 'hub.mode': 'publish', 'hub.url': topic })).status,
    401,
    'a publish ping needs the token too',
  );
  const a = await postForm(
    hub.url,
    { 'hub.mode': 'publish', 'hub.url': topic },
    { authorization: `Bearer ${token}` },
  );
  assert.equal(a.status, 200, a.text);
  const b = await postForm(
    hub.url,
    { 'hub.mode': 'publish', 'hub.topic': topic },
    { authorization: `Bearer ${token}` },
  );
  assert.equal(b.status, 200, b.text);
  await waitFor(() => r.deliveries.length === 2, 'two deliveries');
  assert.deepEqual(
    r.deliveries.map((d) => d.body.toString()),
    ['<feed>v1</feed>', '<feed>v2</feed>'],
    'fetched fresh each time, in order',
  );
  assert.equal(r.deliveries[0]!.headers['content-type'], 'application/atom+xml; charset=utf-8');
  assert.equal(r.deliveries[0]!.headers.link, `<${topic}>; rel="self", <${hub.url}>; rel="hub"`);
  // A topic that cannot be fetched is a 502 with a reason.
  topicServer.removeAllListeners('request');
  topicServer.on('request', (_req, res) => res.writeHead(500).end());
  const c = await postForm(
    hub.url,
    { 'hub.mode': 'publish', 'hub.url': topic },
    { authorization: `Bearer ${token}` },
  );
  assert.equal(c.status, 502);
  assert.match(c.text, /status 500/);
});

test('RT-5: with open publishing any topic may be published without a token', async (t) => {
  const { hub } = await hubFor(t, { openPublishing: true });
  const r = await receiverFor(t);
  await subscribe(hub, r, 'http://anyone.test/t', '/open');
  assert.equal(
    (
      await publish(hub.url, notificationXml('o'), {
        link: linkHeader('http://anyone.test/t', hub.url),
      })
    ).status,
    200,
  );
  await waitFor(() => r.deliveries.length === 1, 'delivery');
});

test('RT-6, RT-2: the hub checks the topic URI after accepting and reports non-compliance without blocking', async (t) => {
  const { hub } = await hubFor(t);
  const heads: string[] = [];
  const good = createServer((req, res) => {
    heads.push(`${req.method} ${req.url}`);
    const self = `http://127.0.0.1:${(good.address() as AddressInfo).port}${req.url}`;
    if (req.url === '/good')
      res
        .writeHead(200, {
          'content-type': 'application/xml',
          link: `<${self}>; rel="self", <${hub.url}>; rel="hub"`,
          'content-length': '0',
        })
        .end();
    else res.writeHead(200, { 'content-type': 'text/html' }).end();
  });
  await new Promise<void>((res) => good.listen(0, '127.0.0.1', res));
  t.after(
    () =>
      new Promise<void>((res) => {
        good.closeAllConnections();
        good.close(() => res());
      }),
  );
  const base = `http://127.0.0.1:${(good.address() as AddressInfo).port}`;
  const { token } = await hub.addSource('src', [`${base}/`]);
  for (const path of ['/good', '/bad']) {
    const a = await publish(hub.url, notificationXml('c'), {
      link: linkHeader(`${base}${path}`, hub.url),
      authorization: `Bearer ${token}`,
    });
    assert.equal(a.status, 200, 'never blocking');
  }
  await waitFor(
    async () =>
      (await metricValue(hub, 'rsnotify_hub_topic_checks_total', 'result="noncompliant"')) === 1,
    'noncompliant counted',
  );
  assert.equal(await metricValue(hub, 'rsnotify_hub_topic_checks_total', 'result="conformant"'), 1);
  assert.deepEqual(heads.sort(), ['HEAD /bad', 'HEAD /good']);
});
