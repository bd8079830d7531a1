// RecentAnswers: a bounded memo for pure functions of a string (a token's hash, a Link header).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RecentAnswers } from '@rsnotify/service-kit';

function counted(): { calls: string[]; compute: (key: string) => string } {
  const calls: string[] = [];
  return { calls, compute: (key) => (calls.push(key), key.toUpperCase()) };
}

test('RecentAnswers: a repeated key is computed once', () => {
  const { calls, compute } = counted();
  const memo = new RecentAnswers(compute);
  assert.equal(memo.get('a'), 'A');
  assert.equal(memo.get('a'), 'A');
  assert.equal(memo.get('b'), 'B');
  assert.deepEqual(calls, ['a', 'b']);
});

test('RecentAnswers: a full memo starts afresh, so it never holds more than max', () => {
  const { calls, compute } = counted();
  const memo = new RecentAnswers(compute, 3);
  for (const key of ['a', 'b', 'c']) memo.get(key);
  assert.equal(memo.size, 3);
  memo.get('d');
  assert.equal(memo.size, 1);
  memo.get('a');
  assert.deepEqual(calls, ['a', 'b', 'c', 'd', 'a']);
  for (let i = 0; i < 100; i++) memo.get(`k${i}`);
  assert.ok(memo.size <= 3);
});

test('RecentAnswers: a key longer than maxKeyLength is answered but not kept', () => {
  const { calls, compute } = counted();
  const memo = new RecentAnswers(compute, 10, 4);
  assert.equal(memo.get('long-key'), 'LONG-KEY');
  assert.equal(memo.get('long-key'), 'LONG-KEY');
  assert.equal(memo.size, 0);
  assert.deepEqual(calls, ['long-key', 'long-key']);
});
