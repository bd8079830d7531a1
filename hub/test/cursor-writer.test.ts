// CursorWriter as a unit: what one batch writes. A mark flags the scheduler's own state object, and
// the cursor is read from it at the flush, so a subscription marked many times is one row with its
// latest state. Fixed updates (given-up records, handed-back cursors) go first, as they were made. A
// failed write loses nothing (promise 1). The store is a plain recorder; flushes are called directly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { CursorWriter, type CursorSource } from '../src/delivery/cursor-writer.js';
import { createLogger } from '../src/observability/index.js';
import type { CursorUpdate } from '../src/store/index.js';

interface Sub extends CursorSource {
  deliveredSeq: number;
}

const cursorOf = (s: Sub): CursorUpdate => ({
  subscriptionId: s.id,
  deliveredSeq: s.deliveredSeq,
  attempts: 0,
  nextAttemptAt: 0,
  firstFailedAt: undefined,
  lastStatus: 202,
  lastError: undefined,
});

function writer(failWrites = 0) {
  const batches: CursorUpdate[][] = [];
  let failures = failWrites;
  const w = new CursorWriter<Sub>({
    store: {
      saveCursors: (updates) => {
        if (failures-- > 0) return Promise.reject(new Error('database away'));
        batches.push([...updates]);
        return Promise.resolve();
      },
    },
    logger: createLogger('fatal', new Writable({ write: (_c, _e, cb) => cb() })),
    now: () => 1_000,
    cursorOf,
    flushDelayMs: 60_000,
  });
  return { w, batches };
}

const sub = (id: number): Sub => ({ id, cursorDirty: false, deliveredSeq: 0 });
const rows = (batch: CursorUpdate[] | undefined) =>
  batch?.map((u) => [u.subscriptionId, u.deliveredSeq, u.givenUp?.seq]);

test('cursor writer: a subscription marked many times is one row, with its state at the flush', async (t) => {
  const { w, batches } = writer();
  t.after(() => w.close());
  const a = sub(1);
  const b = sub(2);
  for (let seq = 1; seq <= 5; seq++) {
    a.deliveredSeq = seq;
    w.mark(a);
  }
  b.deliveredSeq = 7;
  w.mark(b);
  await w.flush();
  assert.deepEqual(rows(batches[0]), [
    [1, 5, undefined],
    [2, 7, undefined],
  ]);
  assert.equal(a.cursorDirty, false, 'the flush took it');
  await w.flush();
  assert.equal(batches.length, 1, 'nothing marked since: no transaction');
});

test('cursor writer: a given-up record goes first and replaces the earlier mark; a later mark follows it', async (t) => {
  const { w, batches } = writer();
  t.after(() => w.close());
  const a = sub(1);
  a.deliveredSeq = 3;
  w.mark(a);
  const givenUp = { seq: 4, reason: 'too old', topicId: 9, callback: 'http://c.test/x' };
  a.deliveredSeq = 4;
  w.markFixed({ ...cursorOf(a), givenUp }, a);
  await w.flush();
  assert.deepEqual(
    rows(batches[0]),
    [[1, 4, 4]],
    'the mark before the record is not written after it',
  );
  w.markFixed({ ...cursorOf(a), deliveredSeq: 5, givenUp: { ...givenUp, seq: 5 } }, a);
  a.deliveredSeq = 6;
  w.mark(a);
  await w.flush();
  assert.deepEqual(rows(batches[1]), [
    [1, 5, 5],
    [1, 6, undefined],
  ]);
});

test('cursor writer: a forgotten subscription is not written', async (t) => {
  const { w, batches } = writer();
  t.after(() => w.close());
  const a = sub(1);
  const b = sub(2);
  w.mark(a);
  w.mark(b);
  w.forget(a);
  await w.flush();
  assert.deepEqual(rows(batches[0]), [[2, 0, undefined]]);
});

test('promise 1: a batch the store refused is written with the next one, before anything newer', async (t) => {
  const { w, batches } = writer(1);
  t.after(() => w.close());
  const a = sub(1);
  const b = sub(2);
  a.deliveredSeq = 1;
  w.mark(a);
  w.markFixed({ ...cursorOf(b), givenUp: { seq: 1, reason: 'gone', topicId: 9, callback: 'x' } });
  await w.flush();
  assert.equal(batches.length, 0, 'the first write failed');
  a.deliveredSeq = 2;
  w.mark(a);
  await w.flush();
  assert.deepEqual(rows(batches[0]), [
    [2, 0, 1],
    [1, 1, undefined],
    [1, 2, undefined],
  ]);
});
