// CursorWriter over the hub's real SQLite store: what one batch writes. A mark flags the scheduler's
// own state object, and the cursor is read from it at the flush, so a subscription marked many times
// is one row with its latest state. Fixed updates (given-up records, handed-back cursors) go first,
// as they were made. A batch the database refuses (here: another connection holds the write lock,
// as a backup or a `sqlite3` shell would) loses nothing (promise 1). Each batch is recorded on its
// way to the store, and what the store holds is read back; flushes are called directly.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CursorWriter, type CursorSource } from '../src/delivery/cursor-writer.js';
import { createLogger } from '../src/observability/index.js';
import { openSqliteRepository, type CursorUpdate, type HubRepository } from '../src/store/index.js';
import { hasLeaseLapsed } from '../src/subscriptions/index.js';
import { logLines } from '@rsnotify/service-kit/testing';
import { tempDir } from './helpers.js';

interface Sub extends CursorSource {
  deliveredSeq: number;
  lastStatus: number;
}

const cursorOf = (s: Sub): CursorUpdate => ({
  subscriptionId: s.id,
  deliveredSeq: s.deliveredSeq,
  attempts: 0,
  nextAttemptAt: 0,
  firstFailedAt: undefined,
  lastStatus: s.lastStatus,
  lastError: undefined,
});

const TOPIC = 'http://source.test/changes';

/** A hub database with two subscriptions to TOPIC, and a writer on it. */
async function writerOnStore(t: TestContext) {
  const file = join(await tempDir(t), 'hub.db');
  const repo = openSqliteRepository(file);
  t.after(() => repo.close());
  const subscribe = (callback: string) =>
    repo.activateSubscription({
      topicUrl: TOPIC,
      topicAsGiven: TOPIC,
      callback,
      secret: undefined,
      algorithm: 'sha256',
      leaseSeconds: 600,
      leaseExpiresAt: 1_000 + 600_000,
      hasLapsed: hasLeaseLapsed,
      now: 1_000,
    });
  const [first, second] = [await subscribe('http://a.test/1'), await subscribe('http://b.test/2')];
  const batches: CursorUpdate[][] = [];
  const log = logLines();
  const w = new CursorWriter<Sub>({
    store: {
      saveCursors: async (updates, now) => {
        await repo.saveCursors(updates, now);
        batches.push([...updates]); // only what the store took
      },
    },
    logger: createLogger('info', log.sink),
    now: () => 1_000,
    cursorOf,
    flushDelayMs: 60_000,
  });
  t.after(() => w.close());
  const sub = (id: number): Sub => ({ id, cursorDirty: false, deliveredSeq: 0, lastStatus: 0 });
  return { w, batches, log, repo, file, a: sub(first!.id), b: sub(second!.id) };
}

const rows = (batch: CursorUpdate[] | undefined) =>
  batch?.map((u) => [u.subscriptionId, u.deliveredSeq, u.givenUp?.seq]);

/** Each subscription's stored cursor: [id, deliveredSeq, lastStatus]. */
async function stored(repo: HubRepository) {
  return (await repo.listSubscriptions())
    .map((s) => [s.id, s.deliveredSeq, s.lastStatus])
    .sort((x, y) => Number(x[0]) - Number(y[0]));
}

/** The given-up records as stored: [subscription, seq, reason]. */
function givenUpRows(file: string): [number, number, string][] {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare('SELECT subscription_id, seq, reason FROM given_up ORDER BY id')
      .raw()
      .all() as [number, number, string][];
  } finally {
    db.close();
  }
}

test('cursor writer: a subscription marked many times is one row, with its state at the flush', async (t) => {
  const { w, batches, repo, a, b } = await writerOnStore(t);
  for (let seq = 1; seq <= 5; seq++) {
    a.deliveredSeq = seq;
    a.lastStatus = 200 + seq;
    w.mark(a);
  }
  b.deliveredSeq = 7;
  b.lastStatus = 202;
  w.mark(b);
  await w.flush();
  assert.deepEqual(rows(batches[0]), [
    [a.id, 5, undefined],
    [b.id, 7, undefined],
  ]);
  assert.deepEqual(await stored(repo), [
    [a.id, 5, 205],
    [b.id, 7, 202],
  ]);
  assert.equal(a.cursorDirty, false, 'the flush took it');
  await w.flush();
  assert.equal(batches.length, 1, 'nothing marked since: no transaction');
});

test('cursor writer: a given-up record goes first and replaces the earlier mark; a later mark follows it', async (t) => {
  const { w, batches, repo, file, a } = await writerOnStore(t);
  const topicId = (await repo.listTopics())[0]!.id;
  a.deliveredSeq = 3;
  w.mark(a);
  const givenUp = { seq: 4, reason: 'too old', topicId, callback: 'http://a.test/1' };
  a.deliveredSeq = 4;
  w.markFixed({ ...cursorOf(a), givenUp }, a);
  await w.flush();
  assert.deepEqual(
    rows(batches[0]),
    [[a.id, 4, 4]],
    'the mark before the record is not written after it',
  );
  w.markFixed({ ...cursorOf(a), deliveredSeq: 5, givenUp: { ...givenUp, seq: 5 } }, a);
  a.deliveredSeq = 6;
  a.lastStatus = 204;
  w.mark(a);
  await w.flush();
  assert.deepEqual(rows(batches[1]), [
    [a.id, 5, 5],
    [a.id, 6, undefined],
  ]);
  assert.deepEqual(givenUpRows(file), [
    [a.id, 4, 'too old'],
    [a.id, 5, 'too old'],
  ]);
  assert.deepEqual((await stored(repo))[0], [a.id, 6, 204]);
});

test('cursor writer: a forgotten subscription is not written', async (t) => {
  const { w, batches, repo, a, b } = await writerOnStore(t);
  a.deliveredSeq = 3;
  b.deliveredSeq = 2;
  w.mark(a);
  w.mark(b);
  w.forget(a);
  await w.flush();
  assert.deepEqual(rows(batches[0]), [[b.id, 2, undefined]]);
  assert.deepEqual(
    (await stored(repo)).map((r) => r.slice(0, 2)),
    [
      [a.id, 0],
      [b.id, 2],
    ],
  );
});

test('promise 1: a batch the database refused (write lock held elsewhere) is written with the next one, before anything newer', async (t) => {
  const { w, batches, log, repo, file, a, b } = await writerOnStore(t);
  const topicId = (await repo.listTopics())[0]!.id;
  a.deliveredSeq = 1;
  a.lastStatus = 500;
  w.mark(a);
  w.markFixed({
    ...cursorOf(b),
    givenUp: { seq: 1, reason: 'gone', topicId, callback: 'http://b.test/2' },
  });
  // Another connection holds the write lock: the store waits its busy timeout, then refuses.
  const locker = new Database(file);
  locker.exec('BEGIN IMMEDIATE');
  try {
    await w.flush();
  } finally {
    locker.exec('ROLLBACK');
    locker.close();
  }
  assert.equal(batches.length, 0, 'the first write failed');
  assert.ok(
    log.of('store.cursor_save_failed').some((e) => e.count === 2),
    'the refusal is logged with the batch it kept',
  );
  assert.deepEqual(givenUpRows(file), [], 'nothing of the refused batch was stored');
  a.deliveredSeq = 2;
  a.lastStatus = 200;
  w.mark(a);
  await w.flush();
  assert.deepEqual(rows(batches[0]), [
    [b.id, 0, 1],
    [a.id, 1, undefined],
    [a.id, 2, undefined],
  ]);
  assert.deepEqual(givenUpRows(file), [[b.id, 1, 'gone']]);
  assert.deepEqual(
    (await stored(repo))[0],
    [a.id, 2, 200],
    'the newest state is the one that stays',
  );
});
