// Hostile input at the hub endpoint, one row per case a black-box probe found or a standard names.
// Each row asserts the refusal (status code, and the refusal metric where the README promises one);
// how long a refusal takes is measured in test/bench/scenarios/hostile.ts, not here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  hubFor,
  linkHeader,
  metricValue,
  notificationXml,
  postForm,
  publish,
  uniqueName,
} from './helpers.js';
import { rawRequest } from './raw-http.js';

const TOPIC = 'http://source.test/hostile/topic';
const SITEMAP =
  'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"';
const MD =
  '<rs:md capability="change-notification" from="2026-01-01T00:00:00Z" until="2026-01-01T00:00:01Z"/>';

function withBytes(before: string, bytes: number[], after: string): Buffer {
  return Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]);
}

interface PublishRow {
  readonly covers: string;
  readonly body: () => string | Buffer;
  readonly status: number;
}

// Publish payloads (RT-7: a malformed payload is a 400; RS codes in the log and metric).
// Written raw on purpose: each is hostile or malformed bytes that no serializer would produce.
const PUBLISH_ROWS: PublishRow[] = [
  {
    covers: 'probe: 30,000-deep nesting stalled the event loop 6 s (RS_XML_TOO_DEEP)',
    status: 400,
    body: () => `<urlset ${SITEMAP}>${MD}${'<a>'.repeat(30_000)}${'</a>'.repeat(30_000)}</urlset>`,
  },
  {
    covers: 'attributes per element (RS_XML_TOO_MANY_ATTRIBUTES)',
    status: 400,
    body: () =>
      `<urlset ${SITEMAP}>${MD}<url ${Array.from({ length: 5_000 }, (_, i) => `a${i}="x"`).join(' ')}><loc>http://a/</loc></url></urlset>`,
  },
  {
    covers: 'a 100 KB element name (RS_XML_NAME_TOO_LONG)',
    status: 400,
    body: () => `<urlset ${SITEMAP}>${MD}<${'n'.repeat(100_000)}/></urlset>`,
  },
  {
    covers: 'a 1 MB attribute value (RS_XML_VALUE_TOO_LONG)',
    status: 400,
    body: () =>
      `<urlset ${SITEMAP}>${MD}<url><loc>http://a/</loc><rs:md change="created" hash="${'x'.repeat(1_000_000)}"/></url></urlset>`,
  },
  {
    covers: 'a 1 MB text node outside loc (RS_XML_TEXT_TOO_LONG)',
    status: 400,
    body: () =>
      `<urlset ${SITEMAP}>${MD}<url><loc>http://a/</loc><x>${'t'.repeat(1_000_000)}</x></url></urlset>`,
  },
  {
    covers: 'probe: byte 0xFF relayed (XML 1.0 well-formedness, RS_XML_NOT_UTF8)',
    status: 400,
    body: () =>
      withBytes(
        `<urlset ${SITEMAP}>${MD}<url><loc>http://a/`,
        [0xff],
        '</loc><rs:md change="created"/></url></urlset>',
      ),
  },
  {
    covers: 'probe: overlong C0 AF relayed (RS_XML_NOT_UTF8)',
    status: 400,
    body: () =>
      withBytes(
        `<urlset ${SITEMAP}>${MD}<url><loc>http://a/`,
        [0xc0, 0xaf],
        '</loc><rs:md change="created"/></url></urlset>',
      ),
  },
  {
    covers: 'probe: encoded surrogate ED A0 80 relayed (RS_XML_NOT_UTF8)',
    status: 400,
    body: () =>
      withBytes(
        `<urlset ${SITEMAP}>${MD}<url><loc>http://a/`,
        [0xed, 0xa0, 0x80],
        '</loc><rs:md change="created"/></url></urlset>',
      ),
  },
  {
    covers: 'probe: <urlset> without the sitemap namespace accepted (RN-1, RS_NAMESPACE_MISSING)',
    status: 400,
    body: () =>
      `<urlset xmlns:rs="http://www.openarchives.org/rs/terms/">${MD}<url><loc>http://a/</loc><rs:md change="created"/></url></urlset>`,
  },
  {
    covers: 'DTD entity expansion (billion laughs, RS_DOCTYPE_FORBIDDEN)',
    status: 400,
    body: () =>
      `<!DOCTYPE x [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><urlset ${SITEMAP}>${MD}<url><loc>&b;</loc></url></urlset>`,
  },
  {
    covers: 'control: a valid notification is still accepted',
    status: 200,
    body: () => notificationXml('ok'),
  },
];

test('hostile publish payloads get their refusal status (table)', async (t) => {
  const { hub } = await hubFor(t, { checkTopics: false });
  const { token } = await hub.addSource(uniqueName('src'), ['http://source.test/hostile/']);
  const headers = { authorization: `Bearer ${token}`, link: linkHeader(TOPIC, hub.url) };
  for (const row of PUBLISH_ROWS) {
    const a = await publish(hub.url, row.body(), headers);
    assert.equal(a.status, row.status, `${row.covers}: ${a.text}`);
  }
});

test('probe: a body of max+1 bytes always gets its 413 (10 of 10), never EPIPE; then the hub serves on', async (t) => {
  const max = 256 * 1024;
  const { hub } = await hubFor(t, { checkTopics: false, maxBodyBytes: max });
  const { token } = await hub.addSource(uniqueName('src'), ['http://source.test/hostile/']);
  const body = Buffer.alloc(max + 1, 0x20);
  for (let i = 0; i < 10; i++) {
    for (const framing of ['length', 'chunked'] as const) {
      const head = [
        `POST /hub HTTP/1.1`,
        `Host: 127.0.0.1:${hub.port}`,
        'Content-Type: application/xml',
        `Authorization: Bearer ${token}`,
        `Link: ${linkHeader(TOPIC, hub.url)}`,
        framing === 'length' ? `Content-Length: ${body.length}` : 'Transfer-Encoding: chunked',
        '',
        '',
      ].join('\r\n');
      const payload =
        framing === 'length'
          ? body
          : Buffer.concat([
              Buffer.from(`${body.length.toString(16)}\r\n`),
              body,
              Buffer.from('\r\n0\r\n\r\n'),
            ]);
      const a = await rawRequest(hub.port, head, { body: payload });
      assert.equal(a.status, 413, `attempt ${i} (${framing}): ${a.head || a.sendError}`);
    }
  }
  assert.ok(
    (await metricValue(hub, 'rsnotify_hub_publish_rejected_total', 'reason="too_large"')) >= 20,
  );
  const ok = await publish(hub.url, notificationXml('after'), {
    authorization: `Bearer ${token}`,
    link: linkHeader(TOPIC, hub.url),
  });
  assert.equal(ok.status, 200);
});

test('probe: a publish without a token is refused (401) from its headers, without reading its 15 MiB body', async (t) => {
  const { hub } = await hubFor(t, { checkTopics: false });
  await hub.addSource(uniqueName('src'), ['http://source.test/hostile/']);
  const body = Buffer.alloc(15 * 1024 * 1024, 0x20);
  const head = [
    'POST /hub HTTP/1.1',
    `Host: 127.0.0.1:${hub.port}`,
    'Content-Type: application/xml',
    `Link: ${linkHeader(TOPIC, hub.url)}`,
    `Content-Length: ${body.length}`,
    '',
    '',
  ].join('\r\n');
  const a = await rawRequest(hub.port, head, { body, stopOnAnswer: true });
  assert.equal(a.status, 401);
  // The hub answered from the headers and then cut the upload: the client never sent it all.
  assert.ok(a.bytesWritten < body.length, `sent ${a.bytesWritten} of ${body.length} bytes`);
  assert.ok(
    (await metricValue(hub, 'rsnotify_hub_publish_rejected_total', 'reason="unauthorized"')) >= 1,
  );
});

interface RawRow {
  readonly covers: string;
  readonly head: (port: number) => string;
  readonly status: number;
  readonly metric: string;
}

const RAW_ROWS: RawRow[] = [
  {
    covers: 'RFC 9112 §3.2: two Host headers',
    status: 400,
    metric: 'status="400",reason="duplicate_host"',
    head: (p) =>
      `POST /hub HTTP/1.1\r\nHost: 127.0.0.1:${p}\r\nHost: evil.test\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 0\r\n\r\n`,
  },
  {
    covers: 'RFC 9112 §6.1: Transfer-Encoding gzip (not chunked) is 501',
    status: 501,
    metric: 'status="501"',
    head: (p) =>
      `POST /hub HTTP/1.1\r\nHost: 127.0.0.1:${p}\r\nContent-Type: application/xml\r\nTransfer-Encoding: gzip\r\n\r\n`,
  },
  {
    covers: 'RFC 9112 §6.1: Transfer-Encoding gzip, chunked is 501',
    status: 501,
    metric: 'status="501"',
    head: (p) =>
      `POST /hub HTTP/1.1\r\nHost: 127.0.0.1:${p}\r\nContent-Type: application/xml\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n`,
  },
  {
    covers: 'request smuggling: Content-Length and Transfer-Encoding together',
    status: 400,
    metric: 'status="400"',
    head: (p) =>
      `POST /hub HTTP/1.1\r\nHost: 127.0.0.1:${p}\r\nContent-Type: application/xml\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
  },
  {
    covers: 'request smuggling: two different Content-Lengths',
    status: 400,
    metric: 'status="400"',
    head: (p) =>
      `POST /hub HTTP/1.1\r\nHost: 127.0.0.1:${p}\r\nContent-Type: application/xml\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nabcdef`,
  },
  {
    covers: 'probe: 431 had no metric (header block over 16 KiB)',
    status: 431,
    metric: 'status="431"',
    head: (p) =>
      `GET /hub HTTP/1.1\r\nHost: 127.0.0.1:${p}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
  },
];

test('HTTP edge cases answer with their status and a refusal metric (table)', async (t) => {
  const { hub } = await hubFor(t, { checkTopics: false });
  for (const row of RAW_ROWS) {
    const a = await rawRequest(hub.port, row.head(hub.port));
    assert.equal(a.status, row.status, `${row.covers}: ${a.head || a.sendError}`);
  }
  const text = await (await fetch(new URL('/metrics', hub.url))).text();
  for (const row of RAW_ROWS) {
    assert.match(
      text,
      new RegExp(
        `rsnotify_hub_requests_rejected_total\\{[^}]*${row.metric.replace(/[()]/g, '\\$&')}[^}]*\\} [1-9]`,
      ),
      row.covers,
    );
  }
});

test('probe: the 64 KiB form 413, the 415 and subscription 400s each have a metric', async (t) => {
  const { hub } = await hubFor(t, { checkTopics: false });
  const big = await postForm(hub.url, {
    'hub.mode': 'subscribe',
    'hub.topic': TOPIC,
    'hub.callback': `http://cb.test/${'x'.repeat(70_000)}`,
  });
  assert.equal(big.status, 413);
  const r415 = await fetch(hub.url, {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: 'x',
  });
  assert.equal(r415.status, 415);
  const bad = await postForm(hub.url, { 'hub.mode': 'subscribe', 'hub.topic': TOPIC });
  assert.equal(bad.status, 400);
  assert.equal(
    await metricValue(
      hub,
      'rsnotify_hub_requests_rejected_total',
      'status="413",reason="form_too_large"',
    ),
    1,
  );
  assert.equal(
    await metricValue(
      hub,
      'rsnotify_hub_requests_rejected_total',
      'status="415",reason="unsupported_media_type"',
    ),
    1,
  );
  assert.equal(
    await metricValue(
      hub,
      'rsnotify_hub_requests_rejected_total',
      'status="400",reason="invalid_form"',
    ),
    1,
  );
});
