// How the simulated Source serves its Change List documents to pollers: conditional GET (a strong
// ETag and Last-Modified, 304 when nothing changed, 200 as soon as anything did) and the busy-Source
// quirk, 503 with Retry-After, on the Change List Index and the Change Lists (and, with
// listUnavailableScope all-lists, the Resource List).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startSourceSimulator, type SourceSimulator } from './index.js';
import { notModified } from './site.js';

async function sim(t: { after: (fn: () => Promise<void>) => void }): Promise<SourceSimulator> {
  const s = await startSourceSimulator({ seed: 9, initialResources: 5, listOnly: true });
  t.after(() => s.close());
  return s;
}

const get = async (url: string, headers: Record<string, string> = {}) => {
  const r = await request(url, { headers: { 'user-agent': 'list-test', ...headers } });
  const body = await r.body.text();
  return { status: r.statusCode, headers: r.headers, body };
};

test('Change List Index: ETag and Last-Modified; If-None-Match and If-Modified-Since get 304 until it changes', async (t) => {
  const s = await sim(t);
  await s.changeBatch(3);
  const first = await get(s.changeListIndexUrl);
  assert.equal(first.status, 200);
  const etag = String(first.headers.etag);
  const lastModified = String(first.headers['last-modified']);
  assert.match(etag, /^"[^"]+"$/, 'a strong ETag');
  assert.ok(Number.isFinite(Date.parse(lastModified)));
  const byEtag = await get(s.changeListIndexUrl, { 'if-none-match': etag });
  assert.equal(byEtag.status, 304);
  assert.equal(byEtag.body, '');
  assert.equal(byEtag.headers.etag, etag);
  const byDate = await get(s.changeListIndexUrl, { 'if-modified-since': lastModified });
  assert.equal(byDate.status, 304);
  // A Change List's own URL answers the same way.
  const listUrl = /<loc>([^<]+)<\/loc>/.exec(first.body)![1]!;
  const list = await get(listUrl);
  assert.equal((await get(listUrl, { 'if-none-match': String(list.headers.etag) })).status, 304);
  await s.changeBatch(2);
  const changed = await get(listUrl, {
    'if-none-match': String(list.headers.etag),
    'if-modified-since': String(list.headers['last-modified']),
  });
  assert.equal(changed.status, 200, 'new entries: the full list again');
  assert.notEqual(changed.headers.etag, list.headers.etag);
  // Last-Modified moved on by at least a second: If-Modified-Since alone cannot hide the change.
  assert.equal(
    (await get(listUrl, { 'if-modified-since': String(list.headers['last-modified']) })).status,
    200,
  );
  const log = s.listRequests().filter((r) => r.userAgent === 'list-test');
  assert.equal(
    log.filter((r) => r.status === 304).length,
    s.stats().listNotModified,
    'every 304 counted',
  );
  assert.ok(log.filter((r) => r.conditional).length >= 4);
});

test('notModified: If-None-Match decides when present (RFC 9110 13.1.2), If-Modified-Since only without it', () => {
  const doc = {
    body: Buffer.alloc(0),
    etag: '"a"',
    lastModifiedMs: Date.UTC(2026, 0, 1, 0, 0, 0, 700),
  };
  const date = 'Thu, 01 Jan 2026 00:00:00 GMT';
  assert.equal(notModified(doc, { 'if-none-match': '"a"' }), true);
  assert.equal(notModified(doc, { 'if-none-match': '"b", "a"' }), true);
  assert.equal(notModified(doc, { 'if-none-match': '"b"', 'if-modified-since': date }), false);
  assert.equal(notModified(doc, { 'if-modified-since': date }), true, 'same second');
  assert.equal(notModified(doc, { 'if-modified-since': 'Wed, 31 Dec 2025 23:59:59 GMT' }), false);
  assert.equal(notModified(doc, { 'if-modified-since': 'not a date' }), false);
  assert.equal(notModified(doc, {}), false);
});

test('listUnavailableScope all-lists: the Resource List answers 503 with Retry-After too; the Capability List does not', async (t) => {
  const s = await sim(t);
  Object.assign(s.faults, {
    listUnavailableScope: 'all-lists',
    listUnavailableNext: 2,
    retryAfterSeconds: 9,
  });
  assert.equal((await get(s.capabilityListUrl)).status, 200);
  const rl = await get(s.resourceListUrl);
  assert.equal(rl.status, 503);
  assert.equal(rl.headers['retry-after'], '9');
  assert.equal((await get(s.changeListIndexUrl)).status, 503);
  assert.equal((await get(s.resourceListUrl)).status, 200, 'the count is used up');
  assert.equal(s.stats().listUnavailable, 2);
});

test('listUnavailableNext: Change List documents answer 503 with Retry-After; other documents and resources do not', async (t) => {
  const s = await sim(t);
  await s.changeBatch(2);
  Object.assign(s.faults, { listUnavailableNext: 2, retryAfterSeconds: 7 });
  const rl = await get(s.resourceListUrl);
  assert.equal(rl.status, 200, 'the Resource List is not a Change List');
  const cap = await get(s.capabilityListUrl);
  assert.equal(cap.status, 200);
  const a = await get(s.changeListIndexUrl);
  assert.equal(a.status, 503);
  assert.equal(a.headers['retry-after'], '7');
  const b = await get(s.changeListIndexUrl);
  assert.equal(b.status, 503);
  assert.equal((await get(s.changeListIndexUrl)).status, 200, 'the count is used up');
  assert.equal(s.stats().listUnavailable, 2);
  const logged = s.listRequests().filter((r) => r.status === 503);
  assert.deepEqual(
    logged.map((r) => r.retryAfterS),
    [7, 7],
  );
  // The probability switch, seeded: over many requests some but not all are refused.
  Object.assign(s.faults, { listUnavailableProbability: 0.5, retryAfterSeconds: 0 });
  const statuses = [];
  for (let i = 0; i < 40; i++) statuses.push((await get(s.changeListIndexUrl)).status);
  assert.ok(statuses.includes(503) && statuses.includes(200));
});
