// The one table from a domain refusal to its HTTP status (app.ts): every refusal a service or
// policy can return has exactly one status, and the headers that go with it; the admin API's
// errors are refusals of these kinds, answered through that table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Hono } from 'hono';
import { REFUSAL_STATUS, refusalHeaders } from '../src/app.js';
import { REFUSALS, type Refusal } from '../src/errors/index.js';
import { errorAnswer } from '../src/admin/api.js';
import { AdminError } from '../src/admin/service.js';
import { TenantError } from '../src/tenants/directory.js';
import { StoreError } from '../src/store/sqlite/index.js';
import { BridgeError } from '../src/bridge/index.js';

test('every domain refusal maps to its status (WH-4, RT-5, RT-7, M-1, WH-21)', () => {
  const rows: [Refusal, number, Record<string, string>][] = [
    ['malformed', 400, {}],
    ['callback-refused', 400, {}],
    ['missing-token', 401, { 'www-authenticate': 'Bearer' }],
    ['wrong-token', 403, {}],
    ['not-owner', 403, {}],
    ['not-found', 404, {}],
    ['conflict', 409, {}],
    ['unauthorized', 401, { 'www-authenticate': 'Bearer' }],
    ['forbidden', 403, {}],
    ['too-large', 413, {}],
    ['unsupported-media-type', 415, {}],
    ['not-implemented', 501, { connection: 'close' }],
    ['topic-unreachable', 502, {}],
    ['busy', 503, { 'retry-after': '1' }],
    ['shutting-down', 503, { 'retry-after': '1' }],
    ['unavailable', 503, {}],
  ];
  for (const [refusal, status, headers] of rows) {
    assert.equal(REFUSAL_STATUS[refusal], status, refusal);
    assert.deepEqual(refusalHeaders(refusal), headers, refusal);
  }
  assert.deepEqual(
    rows.map(([r]) => r).sort(),
    [...REFUSALS].sort(),
    'the table covers every refusal, and only those',
  );
  assert.deepEqual(Object.keys(REFUSAL_STATUS).sort(), [...REFUSALS].sort());
  for (const status of Object.values(REFUSAL_STATUS))
    assert.ok(status >= 400 && status <= 599, `a refusal is a 4xx or 5xx, not ${status}`);
});

test('admin API: each error the service throws is answered as its refusal, with its code and message', async () => {
  const rows: [Error, Refusal, number, Record<string, string>][] = [
    [new AdminError('RSN_ADMIN_NOT_FOUND', 'no Source named "x"'), 'not-found', 404, {}],
    [new AdminError('RSN_ADMIN_BAD_POLL', 'interval'), 'malformed', 400, {}],
    [new AdminError('RSN_ADMIN_BAD_ID', 'id'), 'malformed', 400, {}],
    [new AdminError('RSN_ADMIN_NO_DELIVERY', 'needs a hub'), 'unavailable', 503, {}],
    [new AdminError('RSN_ADMIN_BAD_TOKEN_NAME', 'name'), 'malformed', 400, {}],
    [new TenantError('RSN_SOURCE_BAD_NAME', 'bad name'), 'malformed', 400, {}],
    [new StoreError('RSN_SOURCE_EXISTS', 'exists'), 'conflict', 409, {}],
    [new StoreError('RSN_PREFIX_TAKEN', 'taken'), 'conflict', 409, {}],
    [new StoreError('RSN_BRIDGE_EXISTS', 'exists'), 'conflict', 409, {}],
    [new BridgeError('RSN_BRIDGE_BAD_URL', 'bad url', {}), 'malformed', 400, {}],
  ];
  for (const [err, refusal, status, headers] of rows) {
    if (err instanceof AdminError) assert.equal(err.refusal, refusal, err.message);
    assert.equal(REFUSAL_STATUS[refusal], status);
    const app = new Hono();
    app.get('/', (c) => errorAnswer(c, err));
    const res = await app.request('/');
    assert.equal(res.status, status, err.message);
    for (const [name, value] of Object.entries(headers)) assert.equal(res.headers.get(name), value);
    assert.equal(res.headers.get('retry-after'), null, err.message);
    const code = (err as AdminError).code;
    assert.deepEqual(await res.json(), { error: code, message: err.message });
  }
});

test('admin API: an error that is not the caller mistake is rethrown, not answered as a refusal', async () => {
  const app = new Hono();
  app.get('/', (c) => errorAnswer(c, new StoreError('RSN_STORE_UNAVAILABLE', 'away')));
  app.onError((err, c) => c.text(`rethrown ${(err as StoreError).code}`, 500));
  const res = await app.request('/');
  assert.equal(res.status, 500);
  assert.equal(await res.text(), 'rethrown RSN_STORE_UNAVAILABLE');
});
