import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoff } from '@rsnotify/service-kit';

const never = (): number => assert.fail('no jitter asked for, so no random number either');

test('backoff doubles from baseMs per attempt and stops at maxMs', () => {
  const o = { baseMs: 100, maxMs: 1_000, jitter: 'none' } as const;
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map((a) => backoff(a, o, never)),
    [100, 200, 400, 800, 1_000, 1_000],
  );
  assert.equal(backoff(0, o, never), 100, 'attempt 0 is treated as the first');
  assert.equal(backoff(10_000, o, never), 1_000, 'huge attempt counts do not overflow');
});

test('half jitter stays within [step/2, step) and follows the random source', () => {
  const o = { baseMs: 1_000, maxMs: 60_000, jitter: 'half' } as const;
  assert.equal(
    backoff(1, o, () => 0),
    500,
  );
  assert.equal(
    backoff(1, o, () => 0.5),
    750,
  );
  assert.equal(
    backoff(1, o, () => 0.999_999),
    999,
  );
  assert.equal(
    backoff(3, o, () => 0),
    2_000,
  );
  assert.equal(
    backoff(1, { baseMs: 1, maxMs: 1, jitter: 'half' }, () => 0),
    1,
    'never 0',
  );
});
