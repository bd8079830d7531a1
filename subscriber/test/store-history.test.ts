// History in the subscriber's SQLite store: events and catch-ups pruned after the retention while
// the running totals `status` shows stay, and pruning that goes a bounded number of rows per turn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PRUNE_ROWS_PER_TURN } from '../src/store/sqlite/history.js';
import { tempStore } from './store-helpers.js';

test('status totals survive pruning: events and finished catch-ups go after the retention, the counts stay', async (t) => {
  const { store } = await tempStore(t);
  const src = await store.ensureSource('a', 'http://x/');
  await store.addEvents(src.id, [
    { at: 100, uri: 'http://x/1', change: 'created', outcome: 'written' },
    { at: 100, uri: 'http://x/2', change: 'deleted', outcome: 'deleted' },
    { at: 100, uri: 'http://x/3', change: 'updated', outcome: 'skipped' },
    {
      at: 100,
      uri: 'http://x/4',
      change: 'updated',
      outcome: 'failed',
      errorCode: 'RSN_HASH_MISMATCH',
      error: 'x',
    },
  ]);
  const done = await store.startCatchUp(
    src.id,
    'gap',
    '2020-01-01T00:00:00Z',
    '2020-01-01T00:00:01Z',
    100,
  );
  await store.finishCatchUp(done, { state: 'done', finishedAt: 110 });
  await store.startCatchUp(src.id, 'gap', '2020-01-01T00:00:01Z', '2020-01-01T00:00:02Z', 120); // still running
  await store.addEvents(src.id, [
    { at: 5_000, uri: 'http://x/5', change: 'created', outcome: 'written' },
  ]);
  const before = await store.counters(src.id);
  assert.deepEqual([before.appliedEvents, before.failedEvents, before.catchUps], [3, 1, 2]);

  assert.equal(
    await store.pruneHistory(src.id, 1_000),
    5,
    'four old events and the finished catch-up',
  );
  assert.deepEqual(
    (await store.recentEvents(src.id, 10)).map((e) => e.uri),
    ['http://x/5'],
  );
  assert.equal(
    (await store.lastCatchUp(src.id))?.state,
    'running',
    'a running catch-up is never pruned',
  );
  const after = await store.counters(src.id);
  assert.deepEqual([after.appliedEvents, after.failedEvents, after.catchUps], [3, 1, 2]);
});

test('pruning many events goes a bounded number of rows per turn, found by time: old rows go, recent ones and the totals stay', async (t) => {
  const { store } = await tempStore(t);
  const src = await store.ensureSource('a', 'http://x/');
  const old = 3 * PRUNE_ROWS_PER_TURN + 5;
  const failed = (at: number, i: number) => ({
    at,
    uri: `http://x/${i}`,
    change: 'updated',
    outcome: 'failed' as const,
    errorCode: 'RSN_FETCH_FAILED',
    error: 'HTTP 503',
  });
  await store.addEvents(
    src.id,
    Array.from({ length: old }, (_, i) => failed(100 + i, i)),
  );
  await store.addEvents(src.id, [failed(50_000, -1), failed(60_000, -2)]);
  // The query finds its rows by the (source_id, at) index, not by reading every row of the source.
  const plan = (
    store.sqlite
      .prepare('EXPLAIN QUERY PLAN SELECT id FROM events WHERE source_id = ? AND at < ? LIMIT ?')
      .all(src.id, 10_000, 10) as { detail: string }[]
  ).map((r) => r.detail);
  assert.ok(
    plan.some((d) => d.includes('events_source_at_idx')),
    plan.join('; '),
  );

  // Rows counted at every turn of the event loop while the prune runs: none may lose more than
  // one batch's worth, or a delivery arriving meanwhile would have waited for all of them.
  const rows = store.sqlite.prepare('SELECT COUNT(*) AS n FROM events');
  const seen: number[] = [];
  let counting = true;
  const look = () => {
    seen.push((rows.get() as { n: number }).n);
    if (counting) setImmediate(look);
  };
  look();
  const removed = await store.pruneHistory(src.id, 10_000);
  counting = false;
  look();
  assert.equal(removed, old);
  assert.equal(seen[0], old + 2);
  assert.equal(seen.at(-1), 2);
  const drops = seen.slice(1).map((n, i) => seen[i]! - n);
  assert.ok(
    Math.max(...drops) <= PRUNE_ROWS_PER_TURN,
    `rows gone between turns: ${drops.filter((d) => d > 0).join(', ')}`,
  );
  assert.deepEqual(
    (await store.recentEvents(src.id, 10)).map((e) => e.uri),
    ['http://x/-2', 'http://x/-1'],
  );
  assert.equal((await store.counters(src.id)).failedEvents, old + 2);
  assert.equal(await store.pruneHistory(src.id, 10_000), 0, 'nothing left to prune');
});
