// The PostgreSQL engine's pure parts, table-tested without a server: where each notification of a
// group-committed batch goes (appendPlan) and the wake-up payloads other processes decode.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendPlan, fitsOneStatement } from '../src/store/postgres/appends.js';
import { decodeEvent, encodeEvent, type StoreEvent } from '../src/store/postgres/events.js';

test('appendPlan: topics in URL order (the lock order), counts per topic, and each notification placed by arrival within its topic', () => {
  const cases: [string[], ReturnType<typeof appendPlan>][] = [
    [[], { urls: [], counts: [], topicOf: [], place: [] }],
    [['http://t/a'], { urls: ['http://t/a'], counts: [1], topicOf: [0], place: [1] }],
    [
      ['http://t/b', 'http://t/a', 'http://t/b', 'http://t/c', 'http://t/a', 'http://t/b'],
      {
        urls: ['http://t/a', 'http://t/b', 'http://t/c'],
        counts: [2, 3, 1],
        topicOf: [1, 0, 1, 2, 0, 1],
        place: [1, 1, 2, 1, 2, 3],
      },
    ],
  ];
  for (const [topics, expected] of cases)
    assert.deepEqual(
      appendPlan(topics.map((topicUrl) => ({ topicUrl }))),
      expected,
      topics.join(' '),
    );
});

test('fitsOneStatement: a batch goes in one statement only while every body is 64 KiB or less', () => {
  const note = (bytes: number) => ({
    topicUrl: 'http://t/a',
    receivedAt: 1,
    contentType: 'application/xml',
    linkHeader: '',
    body: Buffer.alloc(bytes),
  });
  assert.equal(fitsOneStatement([note(10), note(64 * 1024)]), true);
  assert.equal(fitsOneStatement([note(10), note(64 * 1024 + 1)]), false);
});

test('store events: every kind survives encode and decode; malformed payloads decode to nothing', () => {
  const events: StoreEvent[] = [
    { kind: 'published', topicId: 12, seq: 340 },
    { kind: 'subscription', id: 7 },
    { kind: 'removed', id: 7 },
    { kind: 'intent' },
    { kind: 'sources' },
  ];
  for (const e of events) assert.deepEqual(decodeEvent(encodeEvent(e)), e, encodeEvent(e));
  for (const bad of ['', 'p', 'p:1', 'p:x:2', 'p:1:-2', 's:', 'r:1.5', 'z:1'])
    assert.equal(decodeEvent(bad), undefined, JSON.stringify(bad));
});
