// The status model's history fields: gaps (count, the last one, the one open now), the last catch-up
// and the last reconciliation are kept in the store (so `status --json` reading the file shows what
// the daemon's /status.json shows), survive history pruning and a reopen, and read the same in the
// JSON, the CLI's text and the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../src/store/index.js';
import { formatStatus, reconciliationRecord, sourceStatus } from '../src/status/index.js';
import { statusPage } from '../src/status/page.js';
import type { ReconcileResult } from '../src/audit/index.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');

test('gaps, the last catch-up and the last reconciliation reach every view of the status', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'rsn-status-activity-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'subscriber.db');
  let store = openSqliteStore({ file });
  const src = await store.ensureSource('museum', 'http://127.0.0.1:1/.well-known/resourcesync');

  const fresh = await sourceStatus(store, src);
  assert.equal(fresh.gaps, 0);
  assert.equal(fresh.lastGap, undefined);
  assert.equal(fresh.lastReconciliation, undefined);

  // Two gaps (RN-5): the count is a running total, the last one is kept with when it was seen.
  await store.recordGap(src.id, {
    from: '2026-03-01T09:00:00Z',
    to: '2026-03-01T09:00:05Z',
    detectedAt: T0,
  });
  await store.recordGap(src.id, {
    from: '2026-03-01T09:10:00Z',
    to: '2026-03-01T09:10:07Z',
    detectedAt: T0 + 60_000,
  });
  await store.savePosition(src.id, {
    syncedUntil: '2026-03-01T09:10:00Z',
    gapOpenedAt: T0 + 60_000,
  });
  const cu = await store.startCatchUp(
    src.id,
    'gap',
    '2026-03-01T09:10:00Z',
    '2026-03-01T09:10:07Z',
    T0 + 61_000,
  );
  await store.finishCatchUp(cu, { state: 'done', changes: 3, finishedAt: T0 + 62_000 });
  const result = {
    report: { inSync: false, checked: 40, missing: ['a', 'b'], extra: ['c'], different: [] },
    results: [],
    fetched: 2,
    removed: 1,
    failed: 0,
    changedMeanwhile: 0,
  } satisfies ReconcileResult;
  await store.recordReconciliation(
    src.id,
    reconciliationRecord('periodic', T0 + 120_000, 'repaired', result),
  );
  // History rows are pruned after a while; the totals and the last events are not.
  await store.pruneHistory(src.id, T0 + 10 * 3_600_000);
  await store.close();
  store = openSqliteStore({ file, readonly: true });
  t.after(() => store.close().catch(() => undefined));

  const s = await sourceStatus(store, (await store.getSource('museum'))!);
  assert.equal(s.gaps, 2);
  assert.deepEqual(s.lastGap, {
    from: '2026-03-01T09:10:00Z',
    to: '2026-03-01T09:10:07Z',
    detectedAt: '2026-03-01T10:01:00.000Z',
  });
  assert.equal(s.gapOpenSince, '2026-03-01T10:01:00.000Z');
  assert.equal(s.catchUps, 1);
  assert.equal(s.lastCatchUp, undefined, 'the catch-up row itself was pruned');
  assert.deepEqual(s.lastReconciliation, {
    at: '2026-03-01T10:02:00.000Z',
    reason: 'periodic',
    outcome: 'repaired',
    checked: 40,
    missing: 2,
    extra: 1,
    different: 0,
    fetched: 2,
    removed: 1,
    failed: 0,
  });
  // The internal columns do not leak into the SourceRecord.
  assert.equal('lastReconciliation' in (await store.getSource('museum'))!, false);

  const text = formatStatus([s]);
  assert.match(text, /gaps\s+2\n/);
  assert.match(
    text,
    /last gap\s+2026-03-01T09:10:00Z to 2026-03-01T09:10:07Z, detected 2026-03-01T10:01:00.000Z/,
  );
  assert.match(
    text,
    /reconciled\s+repaired \(periodic\) at 2026-03-01T10:02:00.000Z: checked 40, missing 2, extra 1, different 0; fetched 2, removed 1, failed 0/,
  );
  const page = String(await statusPage([s], new Date(T0).toISOString()));
  assert.match(page, /<tr data-field="gaps"><th>gaps<\/th><td>2<\/td><\/tr>/);
  assert.match(
    page,
    /data-field="lastGap"><th>last gap<\/th><td>2026-03-01T09:10:00Z to 2026-03-01T09:10:07Z/,
  );
  assert.match(
    page,
    /data-field="lastReconciliation"><th>last reconciliation<\/th><td>repaired \(periodic\)/,
  );
});

test('a reconciliation that failed before its audit is kept with its error and no counts', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'rsn-status-activity-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const store = openSqliteStore({ file: join(dir, 'subscriber.db') });
  t.after(() => store.close().catch(() => undefined));
  const src = await store.ensureSource('s', 'http://127.0.0.1:1/');
  const cu = await store.startCatchUp(src.id, 'poll', '2026-03-01T09:00:00Z', undefined, T0);
  await store.finishCatchUp(cu, { state: 'failed', lastError: 'HTTP 500', finishedAt: T0 + 1 });
  await store.recordReconciliation(
    src.id,
    reconciliationRecord('manual', T0, 'failed', undefined, 'HTTP 503 for the Resource List'),
  );
  const s = await sourceStatus(store, src);
  assert.deepEqual(s.lastReconciliation, {
    at: '2026-03-01T10:00:00.000Z',
    reason: 'manual',
    outcome: 'failed',
    error: 'HTTP 503 for the Resource List',
  });
  assert.deepEqual(s.lastCatchUp, {
    reason: 'poll',
    state: 'failed',
    from: '2026-03-01T09:00:00Z',
    changes: 0,
    startedAt: '2026-03-01T10:00:00.000Z',
    finishedAt: '2026-03-01T10:00:00.001Z',
    error: 'HTTP 500',
  });
  assert.match(
    formatStatus([s]),
    /reconciled\s+failed \(manual\) at 2026-03-01T10:00:00.000Z; error: HTTP 503/,
  );
});
