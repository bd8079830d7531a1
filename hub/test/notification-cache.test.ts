// The fan-out body cache: an entry lives while subscriptions still have to be sent it and goes when
// the last one passes it; bounded by bytes as a backstop (oldest evicted first); a repeated put
// changes nothing; a body too large for a quarter of the budget is never cached (it would evict
// everything else); nothing is cached that nobody waits for. Pure, no I/O.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NotificationCache, cacheBytesFor } from '../src/delivery/index.js';

const note = (topicId: number, seq: number, bytes = 100) => ({
  topicId,
  seq,
  receivedAt: 0,
  contentType: 'application/xml',
  linkHeader: 'x'.repeat(36),
  body: Buffer.alloc(bytes),
});
// body + link header + 64 bytes of bookkeeping
const SIZE = 100 + 36 + 64;

test('cache: the oldest notifications go first once the byte budget is exceeded', () => {
  const cache = new NotificationCache(SIZE * 4);
  for (let seq = 1; seq <= 6; seq++) cache.put(note(1, seq), 1);
  assert.equal(cache.get(1, 1), undefined);
  assert.equal(cache.get(1, 2), undefined);
  for (let seq = 3; seq <= 6; seq++) assert.equal(cache.get(1, seq)?.seq, seq);
  assert.equal(cache.size, 4);
});

test('cache: a repeated put neither duplicates nor refreshes an entry', () => {
  const cache = new NotificationCache(SIZE * 4);
  cache.put(note(1, 1), 1);
  cache.put(note(1, 1), 1);
  for (let seq = 2; seq <= 4; seq++) cache.put(note(1, seq), 1);
  assert.equal(cache.get(1, 1)?.seq, 1, 'four entries fit: the repeat did not count twice');
  cache.put(note(1, 5), 1);
  assert.equal(cache.get(1, 1), undefined, 'the repeat did not make seq 1 newer');
  assert.equal(cache.get(1, 2)?.seq, 2);
  assert.equal(cache.get(2, 2), undefined, 'keys are per topic');
});

test('cache: a body larger than a quarter of the budget is not cached', () => {
  const cache = new NotificationCache(SIZE * 4);
  cache.put(note(1, 1), 1);
  cache.put(note(1, 2, 10_000), 1);
  assert.equal(cache.get(1, 2), undefined);
  assert.equal(cache.get(1, 1)?.seq, 1);
});

test('cache: a long run keeps exactly the newest entries that fit', () => {
  const cache = new NotificationCache(SIZE * 100);
  for (let seq = 1; seq <= 20_000; seq++) cache.put(note(seq % 3, seq), 1);
  for (let seq = 19_901; seq <= 20_000; seq++) assert.equal(cache.get(seq % 3, seq)?.seq, seq);
  assert.equal(cache.get(19_900 % 3, 19_900), undefined);
  assert.equal(cache.size, 100);
});

test('cache: a notification nobody here waits for is not kept', () => {
  const cache = new NotificationCache(SIZE * 4);
  cache.put(note(1, 1), 0);
  assert.equal(cache.get(1, 1), undefined);
  assert.equal(cache.size, 0);
});

test('cache: an entry goes when the last subscription waiting for it has passed it', () => {
  const cache = new NotificationCache(SIZE * 4);
  cache.put(note(1, 1), 3);
  cache.passed(1, 1);
  cache.passed(1, 1);
  assert.equal(cache.get(1, 1)?.seq, 1, 'one subscription still waits');
  cache.passed(1, 1);
  assert.equal(cache.get(1, 1), undefined);
  assert.equal(cache.size, 0);
  cache.passed(1, 1); // a repeat (a delivery sent again) changes nothing
  cache.passed(7, 7); // nor does a notification that was never cached
  assert.equal(cache.size, 0);
});

test('cache: bytes freed by passed entries make room without evicting the waiting ones', () => {
  const cache = new NotificationCache(SIZE * 4);
  for (let seq = 1; seq <= 4; seq++) cache.put(note(1, seq), 1);
  cache.passed(1, 2);
  cache.passed(1, 3);
  cache.put(note(1, 5), 1);
  cache.put(note(1, 6), 1);
  for (const seq of [1, 4, 5, 6]) assert.equal(cache.get(1, seq)?.seq, seq, `seq ${seq} kept`);
  cache.put(note(1, 7), 1);
  assert.equal(cache.get(1, 1), undefined, 'the oldest waiting one is evicted once full again');
  for (const seq of [4, 5, 6, 7]) assert.equal(cache.get(1, seq)?.seq, seq);
});

test('cache: entries passed out of order over a long run: the waiting ones kept within the budget, the passed ones gone', () => {
  // Two topics, one of whose subscribers keeps up while the other's entries wait: the waiting ones
  // stay (within the budget) and the passed ones go, however many pass.
  const cache = new NotificationCache(SIZE * 1_000);
  for (let seq = 1; seq <= 49_999; seq++) {
    cache.put(note(seq % 2, seq), 1);
    if (seq % 2 === 0) cache.passed(0, seq);
  }
  assert.equal(cache.size, 1_000, 'the byte budget holds the waiting entries of topic 1');
  assert.equal(cache.get(1, 49_999)?.seq, 49_999);
  assert.equal(cache.get(1, 47_999), undefined, 'older waiting entries were evicted by size');
  assert.equal(cache.get(0, 49_998), undefined, 'passed entries are gone');
  for (let seq = 48_001; seq <= 49_999; seq += 2) cache.passed(1, seq);
  assert.equal(cache.size, 0);
  cache.put(note(1, 50_001), 1);
  assert.equal(cache.get(1, 50_001)?.seq, 50_001);
});

test('cache: sized by cacheBytesFor, a notification of the maximum body size with a long Link header is cached', () => {
  const maxBody = 16 * 1024 * 1024;
  const cache = new NotificationCache(cacheBytesFor(maxBody));
  const largest = { ...note(1, 1), linkHeader: 'l'.repeat(16 * 1024), body: Buffer.alloc(maxBody) };
  cache.put(largest, 2);
  assert.ok(cache.get(1, 1) === largest, 'the largest notification is cached'); // no diff of 16 MiB
  for (let seq = 2; seq <= 4; seq++) cache.put({ ...largest, seq }, 1);
  assert.equal(cache.size, 4, 'four of the largest fit at once');
});
