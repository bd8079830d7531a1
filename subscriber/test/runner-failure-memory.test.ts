// The memory of the failures recorded and still standing (runner/failure-memory.ts), as a table:
// which failed results an attempt records and which it only counts as repeats.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDateTime } from '@rsnotify/shared';
import { FailureMemory } from '../src/runner/failure-memory.js';
import type { ApplyResult } from '../src/mirror/index.js';

const failed = (uri: string, code = 'RSN_HTTP_STATUS', time?: string): ApplyResult => ({
  uri,
  change: 'updated',
  outcome: 'failed',
  error: { code, message: 'x' },
  ...(time ? { time: parseDateTime(time) } : {}),
});
const written = (uri: string): ApplyResult => ({ uri, change: 'updated', outcome: 'written' });

/** A failed or applied result, or the end of a record with nothing holding the position. */
type Step = readonly [result: ApplyResult, repeats: boolean | 'settled'] | 'record ended';

const cases: { name: string; steps: Step[] }[] = [
  {
    name: 'the same change failing the same way is a repeat, in the same record or another',
    steps: [
      [failed('u'), false],
      [failed('u'), true],
      [failed('u'), true],
    ],
  },
  {
    name: 'another error code is news',
    steps: [
      [failed('u'), false],
      [failed('u', 'RSN_HASH_MISMATCH'), false],
      [failed('u', 'RSN_HASH_MISMATCH'), true],
    ],
  },
  {
    name: 'a record that ended with nothing holding the position forgets what failed before',
    steps: [[failed('u'), false], 'record ended', [failed('u'), false], [failed('u'), true]],
  },
  {
    name: 'a change that applied is news when it fails again',
    steps: [
      [failed('u'), false],
      [written('u'), 'settled'],
      [failed('u'), false],
    ],
  },
  {
    name: 'two changes of one URI at different times are two failures',
    steps: [
      [failed('u', 'RSN_HTTP_STATUS', '2026-01-01T00:00:01Z'), false],
      [failed('u', 'RSN_HTTP_STATUS', '2026-01-01T00:00:02Z'), false],
      [failed('u', 'RSN_HTTP_STATUS', '2026-01-01T00:00:01Z'), true],
    ],
  },
];

for (const { name, steps } of cases) {
  test(`failure memory: ${name}`, () => {
    const memory = new FailureMemory();
    steps.forEach((step, i) => {
      if (step === 'record ended') return memory.forget();
      const [result, expected] = step;
      if (expected === 'settled') memory.settled(result);
      else assert.equal(memory.repeats(result), expected, `step ${i}`);
    });
  });
}

test('failure memory: past its limit a failure is not remembered, so it is recorded at every attempt', () => {
  const memory = new FailureMemory(2);
  assert.deepEqual(
    ['a', 'b', 'c'].map((u) => memory.repeats(failed(u))),
    [false, false, false],
  );
  assert.equal(memory.remembered, 2);
  assert.deepEqual(
    ['a', 'b', 'c'].map((u) => memory.repeats(failed(u))),
    [true, true, false],
  );
});
