import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dateTimeFromMicros } from '@rsnotify/shared';
import { ChangeListStore, type Batch } from './changelists.js';
import type { ChangeRecord } from './state.js';

const T0 = 1_700_000_000_000_000n;
const at = (us: bigint) => dateTimeFromMicros(T0 + us);

function batch(fromUs: bigint, untilUs: bigint, count: number): Batch {
  const changes: ChangeRecord[] = [];
  for (let i = 0; i < count; i++) {
    const micros = T0 + fromUs + BigInt(i + 1);
    changes.push({
      uri: `http://x/r${i}`,
      target: `/r${i}`,
      change: 'deleted',
      time: dateTimeFromMicros(micros),
      micros,
      legacy: false,
    });
  }
  return { from: at(fromUs), until: at(untilUs), changes };
}

test('RC-22, RC-24: a list closes at a batch boundary after maxEntries; the next list starts at its until', () => {
  const store = new ChangeListStore(at(0n), 0, {
    maxEntries: 3,
    maxAgeMs: 60_000,
    retentionMs: 600_000,
  });
  store.enqueue(batch(0n, 10n, 2), 0, 0);
  assert.equal(store.lists.length, 1);
  store.enqueue(batch(10n, 20n, 2), 0, 0);
  assert.equal(store.lists.length, 2);
  const [closed, open] = store.lists;
  assert.equal(closed!.entries.length, 4);
  assert.equal(closed!.until!.lexical, at(20n).lexical);
  assert.equal(open!.from.lexical, closed!.until!.lexical);
  assert.equal(open!.until, undefined);
});

test('RC-22: an open list with entries closes after maxAgeMs, an empty one stays open', () => {
  const store = new ChangeListStore(at(0n), 0, {
    maxEntries: 100,
    maxAgeMs: 1000,
    retentionMs: 600_000,
  });
  store.maintain(5000);
  assert.equal(store.lists.length, 1, 'an empty open list does not roll over');
  store.enqueue(batch(0n, 10n, 1), 5000, 5000);
  store.maintain(5999);
  assert.equal(store.lists.length, 1);
  store.maintain(6000);
  assert.equal(store.lists.length, 2);
  assert.equal(store.lists[0]!.until!.lexical, at(10n).lexical);
});

test('retention drops old closed lists, so the first from moves forward; the open list stays', () => {
  const store = new ChangeListStore(at(0n), 0, {
    maxEntries: 1,
    maxAgeMs: 60_000,
    retentionMs: 1000,
  });
  store.enqueue(batch(0n, 10n, 1), 0, 0);
  store.enqueue(batch(10n, 20n, 1), 500, 500);
  assert.equal(store.lists.length, 3);
  assert.equal(store.lists[0]!.from.lexical, at(0n).lexical);
  store.maintain(1200);
  assert.equal(store.lists.length, 2);
  assert.equal(store.lists[0]!.from.lexical, at(10n).lexical);
  store.maintain(100_000);
  assert.equal(store.lists.length, 1);
  assert.equal(store.lists[0]!.from.lexical, at(20n).lexical);
});

test('lag: a batch reaches the lists only at its visibility time, and completeUpTo says how far they go', () => {
  const store = new ChangeListStore(at(0n), 0, {
    maxEntries: 100,
    maxAgeMs: 60_000,
    retentionMs: 600_000,
  });
  store.enqueue(batch(0n, 10n, 2), 0, 0);
  store.enqueue(batch(10n, 20n, 3), 1000, 0);
  assert.equal(store.current().entries.length, 2);
  assert.equal(store.completeUpTo()!.lexical, at(10n).lexical);
  store.maintain(1000);
  assert.equal(store.current().entries.length, 5);
  assert.equal(store.completeUpTo(), undefined);
});

test('RN-5 guard: a batch that does not start at the previous until is refused', () => {
  const store = new ChangeListStore(at(0n), 0, {
    maxEntries: 100,
    maxAgeMs: 60_000,
    retentionMs: 600_000,
  });
  assert.throws(() => store.enqueue(batch(5n, 10n, 1), 0, 0), /simulator bug/);
});
