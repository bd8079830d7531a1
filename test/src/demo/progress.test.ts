// The demo's counters say what they count: this run's figures on the progress line, running totals
// only on a line that says so, and "errors" only for the demo's own failures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatProgress, formatTotals, type DemoCounters } from './progress.js';

const counters: DemoCounters = {
  changesPublished: 120,
  notificationsPosted: 12,
  notificationsDelivered: 11,
  changesApplied: 118,
  lagMs: 4,
  catchUps: 1,
  changesFailed: 3,
  deliveriesIgnored: 2,
  publishErrors: 0,
  syncedUntil: '2026-01-01T00:00:02Z',
  sourceUntil: '2026-01-01T00:00:01Z',
};

test('demo progress: labelled as this run, failed applies and ignored deliveries apart', () => {
  const line = formatProgress(counters, 12_000);
  assert.match(line, /this run: published +120 changes in +12 notifications/);
  assert.match(line, /failed applies 3 /);
  assert.match(line, /ignored deliveries \(bad signature\) 2 /);
  assert.match(line, /publish errors 0 /);
  // No figure adds different things up under the name "errors".
  assert.doesNotMatch(line, /\| errors /);
  assert.match(line, /in step$/);
});

test('demo totals: the running totals are labelled as all runs of the data directory', () => {
  const line = formatTotals({
    changesApplied: 500,
    changesFailed: 7,
    deliveriesIgnored: 2,
    catchUps: 3,
  });
  assert.equal(
    line,
    'totals of this data directory (all runs): applied 500 changes, 3 catch-ups, 7 failed applies, 2 ignored deliveries (bad signature)',
  );
});
