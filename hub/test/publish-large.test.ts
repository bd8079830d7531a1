// Large publishes at the hub's limits: a valid notification of the maximum body size (16 MiB) is
// parsed in slices (decode, prolog check and parse alike) and must still be accepted (RT-7: 200) and
// relayed byte for byte (M-4); a body made of unknown elements is skipped element by element, not
// stored, and answered by the element limit. The event-loop stall of these publishes is measured in
// test/bench (scenario "publish-stall"), never asserted here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { verifySignature } from '@rsnotify/shared';
import { get, hubFor, linkHeader, publish, receiverFor, subscribe, waitFor } from './helpers.js';

const TOPIC = 'http://source.test/changes';
const MAX_BODY = 16 * 1024 * 1024;
const SECRET = 'a secret for the large deliveries';
// Raw on purpose: the payload is sized to the byte, so its head and tail are fixed strings.
const HEAD =
  '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">' +
  '<rs:md capability="change-notification" from="2026-01-01T00:00:00Z" until="2026-01-01T00:00:01Z"/>';
const TAIL = '</urlset>\n';

/** A valid notification of exactly `bytes` bytes, non-ASCII included (3-byte sequences cross slices). */
function validNotification(bytes: number): Buffer {
  const entry = (i: number): string =>
    `<url><loc>http://source.test/r/€${String(i).padStart(8, '0')}</loc><rs:md change="updated" datetime="2026-01-01T00:00:00Z"/></url>\n`;
  const parts: string[] = [HEAD];
  let size = Buffer.byteLength(HEAD) + Buffer.byteLength(TAIL);
  const one = Buffer.byteLength(entry(0));
  for (let i = 0; size + one <= bytes; i++) {
    parts.push(entry(i));
    size += one;
  }
  parts.push(' '.repeat(bytes - size), TAIL); // whitespace to the exact size
  return Buffer.from(parts.join(''));
}

test('RT-7, M-4, WH-18: a valid notification of exactly the maximum body size (16 MiB) is accepted and relayed whole, with its length and a signature over all of it', async (t) => {
  const { hub } = await hubFor(t, { maxBodyBytes: MAX_BODY });
  const r = await receiverFor(t);
  const { token } = await hub.addSource('src', ['http://source.test/']);
  await subscribe(hub, r, TOPIC, '/big', { 'hub.secret': SECRET });
  const body = validNotification(MAX_BODY);
  assert.equal(body.length, MAX_BODY);
  const answer = publish(hub.url, body, {
    link: linkHeader(TOPIC, hub.url),
    authorization: `Bearer ${token}`,
  });
  // The hub keeps answering other requests while it reads the body.
  assert.equal((await get(new URL('/healthz', hub.url).href)).status, 200);
  const a = await answer;
  assert.equal(a.status, 200, a.text);
  const [d] = await waitFor(
    () => (r.deliveriesTo('/big').length ? r.deliveriesTo('/big') : undefined),
    'delivery of the 16 MiB notification',
    120_000,
  );
  assert.equal(d!.body.length, MAX_BODY);
  assert.ok(d!.body.equals(body), 'the relayed bytes are the published ones');
  // Sent with its length (not chunked), and signed over all of it (hashed in slices).
  assert.equal(d!.headers['content-length'], String(MAX_BODY));
  assert.equal(d!.headers['transfer-encoding'], undefined);
  const signature = d!.headers['x-hub-signature'];
  assert.deepEqual(verifySignature(String(signature), SECRET, body), {
    ok: true,
    method: 'sha256',
  });
});

test('a body of millions of unknown elements is refused by the element limit (400), one under it is accepted', async (t) => {
  const { hub } = await hubFor(t, { maxBodyBytes: MAX_BODY });
  const r = await receiverFor(t);
  const { token } = await hub.addSource('src', ['http://source.test/']);
  await subscribe(hub, r, TOPIC, '/unknown');
  const headers = { link: linkHeader(TOPIC, hub.url), authorization: `Bearer ${token}` };
  const entry = '<url><loc>http://source.test/r</loc><rs:md change="created"/></url>';
  // 4.19 million `<b/>` in 16 MiB: past the default maxElements (4,000,000).
  const flood = Buffer.from(
    `${HEAD}${entry}${'<b/>'.repeat((MAX_BODY - HEAD.length - entry.length - TAIL.length) / 4)}${TAIL}`,
  );
  assert.ok(flood.length <= MAX_BODY);
  const refused = await publish(hub.url, flood, headers);
  assert.equal(refused.status, 400);
  assert.match(refused.text, /RS_XML_TOO_MANY_ELEMENTS|element count/);
  // A million unknown elements (4 MiB) are within the limit: skipped, accepted, relayed whole.
  const many = Buffer.from(`${HEAD}${entry}${'<b/>'.repeat(1_000_000)}${TAIL}`);
  const accepted = await publish(hub.url, many, headers);
  assert.equal(accepted.status, 200, accepted.text);
  const [d] = await waitFor(
    () => (r.deliveriesTo('/unknown').length ? r.deliveriesTo('/unknown') : undefined),
    'delivery',
    60_000,
  );
  assert.ok(d!.body.equals(many));
  assert.equal(r.deliveriesTo('/unknown').length, 1, 'the refused one was never relayed');
});
