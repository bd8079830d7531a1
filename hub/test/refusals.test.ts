// The one table from a domain refusal to its HTTP status (app.ts): every refusal a service or
// policy can return has exactly one status, and the headers that go with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REFUSAL_STATUS, refusalHeaders } from '../src/app.js';
import { REFUSALS, type Refusal } from '../src/errors/index.js';

test('every domain refusal maps to its status (WH-4, RT-5, RT-7, M-1, WH-21)', () => {
  const rows: [Refusal, number, Record<string, string>][] = [
    ['malformed', 400, {}],
    ['callback-refused', 400, {}],
    ['missing-token', 401, { 'www-authenticate': 'Bearer' }],
    ['wrong-token', 403, {}],
    ['not-owner', 403, {}],
    ['too-large', 413, {}],
    ['unsupported-media-type', 415, {}],
    ['topic-unreachable', 502, {}],
    ['busy', 503, { 'retry-after': '1' }],
    ['shutting-down', 503, { 'retry-after': '1' }],
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
