// The memory of a retried record's failures (runner/failure-memory.ts), as a table: which failed
// results an attempt records and which it only counts as repeats.
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

type Step = readonly [record: string, result: ApplyResult, repeats: boolean | 'settled'];

const cases: { name: string; steps: Step[] }[] = [
  {
    name: 'the same change failing the same way in the same record is a repeat',
    steps: [
      ['n1', failed('u'), false],
      ['n1', failed('u'), true],
      ['n1', failed('u'), true],
    ],
  },
  {
    name: 'another error code is news',
    steps: [
      ['n1', failed('u'), false],
      ['n1', failed('u', 'RSN_HASH_MISMATCH'), false],
      ['n1', failed('u', 'RSN_HASH_MISMATCH'), true],
    ],
  },
  {
    name: 'another record forgets the last one',
    steps: [
      ['n1', failed('u'), false],
      ['n2', failed('u'), false],
      ['n1', failed('u'), false],
    ],
  },
  {
    name: 'a change that applied is news when it fails again',
    steps: [
      ['n1', failed('u'), false],
      ['n1', written('u'), 'settled'],
      ['n1', failed('u'), false],
    ],
  },
  {
    name: 'two changes of one URI at different times are two failures',
    steps: [
      ['n1', failed('u', 'RSN_HTTP_STATUS', '2026-01-01T00:00:01Z'), false],
      ['n1', failed('u', 'RSN_HTTP_STATUS', '2026-01-01T00:00:02Z'), false],
      ['n1', failed('u', 'RSN_HTTP_STATUS', '2026-01-01T00:00:01Z'), true],
    ],
  },
];

for (const { name, steps } of cases) {
  test(`failure memory: ${name}`, () => {
    const memory = new FailureMemory();
    steps.forEach(([record, result, expected], i) => {
      memory.attempt(record);
      if (expected === 'settled') memory.settled(result);
      else assert.equal(memory.repeats(result), expected, `step ${i}`);
    });
  });
}

test('failure memory: past its limit a failure is not remembered, so it is recorded at every attempt', () => {
  const memory = new FailureMemory(2).attempt('n1');
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
