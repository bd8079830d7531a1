// The fetch retry policy is a pure function: outcome + attempt + now -> decision (no sleeping inside).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  decideRetry,
  parseRetryAfter,
  type FetchOutcome,
  type RetryDecision,
} from '../src/mirror/index.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const o = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1_000, maxRetryAfterMs: 60_000 };

const rows: [string, FetchOutcome, number, RetryDecision][] = [
  ['a 200 is done', { kind: 'ok' }, 1, { action: 'done' }],
  [
    'a 500 is retried with backoff',
    { kind: 'status', status: 500 },
    1,
    { action: 'retry', delayMs: 100 },
  ],
  [
    'the backoff doubles per attempt',
    { kind: 'status', status: 502 },
    3,
    { action: 'retry', delayMs: 400 },
  ],
  [
    'the last attempt fails with the status',
    { kind: 'status', status: 503 },
    4,
    { action: 'fail', code: 'RSN_HTTP_STATUS', status: 503 },
  ],
  [
    '429 honours Retry-After seconds',
    { kind: 'status', status: 429, retryAfter: '7' },
    1,
    { action: 'retry', delayMs: 7_000 },
  ],
  [
    '429 honours a Retry-After HTTP-date',
    { kind: 'status', status: 429, retryAfter: 'Sun, 01 Mar 2026 12:00:30 GMT' },
    1,
    { action: 'retry', delayMs: 30_000 },
  ],
  [
    'a Retry-After beyond the limit fails instead of stalling',
    { kind: 'status', status: 429, retryAfter: '3600' },
    1,
    { action: 'fail', code: 'RSN_HTTP_STATUS', status: 429 },
  ],
  [
    '429 without Retry-After backs off',
    { kind: 'status', status: 429 },
    2,
    { action: 'retry', delayMs: 200 },
  ],
  [
    '404 fails at once',
    { kind: 'status', status: 404 },
    1,
    { action: 'fail', code: 'RSN_HTTP_STATUS', status: 404 },
  ],
  [
    '410 fails at once',
    { kind: 'status', status: 410 },
    1,
    { action: 'fail', code: 'RSN_HTTP_STATUS', status: 410 },
  ],
  [
    'a network error is retried',
    { kind: 'network', code: 'ECONNRESET' },
    1,
    { action: 'retry', delayMs: 100 },
  ],
  [
    'a network error on the last attempt is RSN_FETCH_FAILED',
    { kind: 'network', code: 'UND_ERR_SOCKET' },
    4,
    { action: 'fail', code: 'RSN_FETCH_FAILED' },
  ],
  [
    'RC-26: a hash mismatch fails at once with its code (the caller knows whether a later change supersedes it)',
    { kind: 'integrity', code: 'RSN_HASH_MISMATCH' },
    1,
    { action: 'fail', code: 'RSN_HASH_MISMATCH' },
  ],
  [
    'RC-27: a length mismatch fails at once with its code',
    { kind: 'integrity', code: 'RSN_LENGTH_MISMATCH' },
    1,
    { action: 'fail', code: 'RSN_LENGTH_MISMATCH' },
  ],
  [
    'a refused address is never retried',
    { kind: 'fatal', code: 'RSN_OUTBOUND_PRIVATE_ADDRESS' },
    1,
    { action: 'fail', code: 'RSN_OUTBOUND_PRIVATE_ADDRESS' },
  ],
  ['the delay is capped', { kind: 'status', status: 500 }, 3, { action: 'retry', delayMs: 400 }],
];

for (const [name, outcome, attempt, expected] of rows) {
  test(`retry policy: ${name}`, () => {
    assert.deepEqual(decideRetry(outcome, attempt, NOW, o), expected);
  });
}

test('retry policy: the cap holds for long runs', () => {
  assert.deepEqual(
    decideRetry({ kind: 'status', status: 500 }, 9, NOW, { ...o, maxAttempts: 20 }),
    { action: 'retry', delayMs: 1_000 },
  );
});

test('Retry-After: seconds, HTTP-dates in the past, and junk', () => {
  assert.equal(parseRetryAfter('120', NOW), 120_000);
  assert.equal(parseRetryAfter('Sun, 01 Mar 2026 11:00:00 GMT', NOW), 0);
  assert.equal(parseRetryAfter('soon', NOW), undefined);
  assert.equal(parseRetryAfter(undefined, NOW), undefined);
});
