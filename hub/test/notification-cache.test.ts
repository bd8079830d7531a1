// The fan-out body cache: bounded by bytes, oldest notifications evicted first, a repeated put
// changes nothing, and a body too large for a quarter of the budget is never cached (it would evict
// everything else). Pure, no I/O.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NotificationCache } from '../src/delivery/index.js';

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
  for (let seq = 1; seq <= 6; seq++) cache.put(note(1, seq));
  assert.equal(cache.get(1, 1), undefined);
  assert.equal(cache.get(1, 2), undefined);
  for (let seq = 3; seq <= 6; seq++) assert.equal(cache.get(1, seq)?.seq, seq);
});

test('cache: a repeated put neither duplicates nor refreshes an entry', () => {
  const cache = new NotificationCache(SIZE * 4);
  cache.put(note(1, 1));
  cache.put(note(1, 1));
  for (let seq = 2; seq <= 4; seq++) cache.put(note(1, seq));
  assert.equal(cache.get(1, 1)?.seq, 1, 'four entries fit: the repeat did not count twice');
  cache.put(note(1, 5));
  assert.equal(cache.get(1, 1), undefined, 'the repeat did not make seq 1 newer');
  assert.equal(cache.get(1, 2)?.seq, 2);
  assert.equal(cache.get(2, 2), undefined, 'keys are per topic');
});

test('cache: a body larger than a quarter of the budget is not cached', () => {
  const cache = new NotificationCache(SIZE * 4);
  cache.put(note(1, 1));
  cache.put(note(1, 2, 10_000));
  assert.equal(cache.get(1, 2), undefined);
  assert.equal(cache.get(1, 1)?.seq, 1);
});

test('cache: a long run keeps exactly the newest entries that fit', () => {
  const cache = new NotificationCache(SIZE * 100);
  for (let seq = 1; seq <= 20_000; seq++) cache.put(note(seq % 3, seq));
  for (let seq = 19_901; seq <= 20_000; seq++) assert.equal(cache.get(seq % 3, seq)?.seq, seq);
  assert.equal(cache.get(19_900 % 3, 19_900), undefined);
});
