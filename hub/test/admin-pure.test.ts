// The console's pure decisions, table-tested without sockets: delivery health labels, what may be
// shown of callbacks and free text, the cross-site verdict, the subscription filter parser, and
// the admin token name rule (on a real SQLite store).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Hono } from 'hono';
import { deliveryHealth, FAILING_AFTER_ATTEMPTS, FAILING_AFTER_MS } from '../src/admin/health.js';
import { redactText, redactUrl } from '@rsnotify/service-kit';
import { join } from 'node:path';
import { createAdminToken, isCrossSite } from '../src/admin/auth.js';
import { AdminError } from '../src/admin/admin-error.js';
import { openAdminStore } from '../src/store/admin.js';
import { tempDir } from './helpers.js';
import { subscriptionFilter } from '../src/admin/api.js';

test('delivery health: healthy with no failed attempt, retrying below the threshold, failing at it or after a minute', () => {
  const now = 1_000_000;
  const rows: [number, number | undefined, string][] = [
    [0, undefined, 'healthy'],
    [1, now - 10, 'retrying'],
    [FAILING_AFTER_ATTEMPTS - 1, now - 1_000, 'retrying'],
    [FAILING_AFTER_ATTEMPTS, now - 1_000, 'failing'],
    [1, now - FAILING_AFTER_MS, 'failing'],
    [2, undefined, 'retrying'],
  ];
  for (const [attempts, firstFailedAt, want] of rows) {
    assert.equal(
      deliveryHealth({ attempts, firstFailedAt }, now),
      want,
      `${attempts} attempts, first failed ${firstFailedAt}`,
    );
  }
});

test('redaction keeps the origin and a short hash, never the path, query or a token', () => {
  const cb = 'https://mirror.example:8443/cb/capability-abc123?x=secret';
  const shown = redactUrl(cb);
  assert.ok(shown.startsWith('https://mirror.example:8443/'));
  assert.ok(!shown.includes('capability-abc123') && !shown.includes('secret'));
  assert.notEqual(
    redactUrl('https://mirror.example:8443/cb/other'),
    shown,
    'two callbacks of one origin stay apart',
  );
  assert.ok(!redactUrl('not a url /with/path').includes('/with/path'));
  const text = redactText(
    'callback https://m.example/cb/xyz-capability refused; token rsn_ABCDEFGHIJKLMNOPQRSTUV was wrong',
  );
  assert.ok(!text.includes('xyz-capability'));
  assert.ok(!text.includes('rsn_ABCDEFGHIJKLMNOPQRSTUV'));
  assert.ok(text.includes('https://m.example/'));
});

test('cross-site verdict: Sec-Fetch-Site decides when present, else Origin against Host; safe methods pass', async () => {
  const rows: [string, Record<string, string>, boolean][] = [
    ['POST', { 'sec-fetch-site': 'same-origin', origin: 'null' }, false],
    ['POST', { 'sec-fetch-site': 'cross-site' }, true],
    ['POST', { 'sec-fetch-site': 'same-site' }, true],
    ['POST', { 'sec-fetch-site': 'none' }, false],
    ['POST', { origin: 'http://hub.test' }, false],
    ['POST', { origin: 'http://evil.test' }, true],
    ['POST', { origin: 'null' }, true],
    ['POST', {}, false],
    ['DELETE', { origin: 'http://evil.test' }, true],
    ['GET', { 'sec-fetch-site': 'cross-site' }, false],
  ];
  const app = new Hono();
  app.all('/x', (c) => c.text(String(isCrossSite(c))));
  for (const [method, headers, want] of rows) {
    const res = await app.request('http://hub.test/x', {
      method,
      headers: { host: 'hub.test', ...headers },
    });
    assert.equal(await res.text(), String(want), `${method} ${JSON.stringify(headers)}`);
  }
});

test('subscription filter: known states and health values only', () => {
  assert.deepEqual(
    subscriptionFilter({ topic: 'http://t.test/a', state: 'active', health: 'failing' }),
    { topic: 'http://t.test/a', state: 'active', health: 'failing' },
  );
  assert.deepEqual(subscriptionFilter({ topic: '', callbackOrigin: '' }), {});
  assert.equal(typeof subscriptionFilter({ state: 'gone' }), 'string');
  assert.equal(typeof subscriptionFilter({ health: 'ok' }), 'string');
});

test('admin token names: 1-100 letters, digits, ".", "_" or "-", else RSN_ADMIN_BAD_TOKEN_NAME (a malformed request), nothing stored', async (t) => {
  const store = await openAdminStore(join(await tempDir(t), 'hub.db'));
  t.after(() => store.close());
  for (const name of ['', '-lead', 'a b', 'x'.repeat(101), 'ops/1', 'ü']) {
    await assert.rejects(createAdminToken(store, name, 1), (err: unknown) => {
      assert.ok(err instanceof AdminError, JSON.stringify(name));
      assert.equal(err.code, 'RSN_ADMIN_BAD_TOKEN_NAME');
      assert.equal(err.refusal, 'malformed');
      return true;
    });
  }
  assert.deepEqual(await store.listAdminTokens(), []);
  const made = await createAdminToken(store, 'ops.team_1-a', 1);
  assert.equal(made.record.name, 'ops.team_1-a');
});
