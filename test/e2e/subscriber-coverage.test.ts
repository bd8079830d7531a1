// The subscriber against Sources that bend the spec, as a user runs it (`sync`, `audit` child
// processes): coverage is proven, never assumed (RC-21..RC-24), a baseline under churn completes
// (RC-15), entries without a change time are placed by document order (RC-23), and `sync` says in
// its exit code and last line what it proved.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  mirrorEquals,
  runSubscriberCli as run,
  sourceRig,
  syncedRig as rig,
} from './subscriber-helpers.js';

test('RC-21/RC-24: a Change List without from, cut short past the position, is history gone, not applied as if complete', async (t) => {
  const { sim, ws, file } = await rig(t, 31, { omitChangeListFrom: 1 });
  await sim.changeBatch(20);
  await sim.changeBatch(20);
  sim.faults.truncateHistoryNext = 14; // the oldest changes after the position are gone from the lists
  const r = await run(['sync', 'sim', '--config', file]);
  assert.equal(r.code, 0, r.out);
  assert.match(r.last, /history gone \(no-from\): re-baselined/, r.out);
  assert.ok(
    await mirrorEquals(ws.mirrorDir, sim.snapshot()),
    'the re-baseline mirrored the Source',
  );
  const audit = await run(['audit', 'sim', '--config', file]);
  assert.equal(audit.code, 0, audit.out);
});

test('RC-21: lists without from that reach back past the position cause no re-baseline', async (t) => {
  const { sim, ws, file } = await rig(t, 32, { omitChangeListFrom: 1 });
  await sim.changeBatch(10); // the open list's earliest entry now predates the next position
  assert.equal((await run(['sync', 'sim', '--config', file])).code, 0);
  await sim.changeBatch(10);
  const r = await run(['sync', 'sim', '--config', file]);
  assert.equal(r.code, 0, r.out);
  assert.match(r.last, /in sync: coverage proven to /, r.out);
  assert.doesNotMatch(r.out, /history_gone|baseline\.started/);
  assert.ok(await mirrorEquals(ws.mirrorDir, sim.snapshot()));
});

test('RC-22: a Change List whose from moved past the position is history gone (from-after-position)', async (t) => {
  const { sim, ws, file } = await rig(t, 33, {});
  await sim.changeBatch(20);
  sim.faults.truncateHistoryNext = 5;
  const r = await run(['sync', 'sim', '--config', file]);
  assert.equal(r.code, 0, r.out);
  assert.match(r.last, /history gone \(from-after-position\)/, r.out);
  assert.ok(await mirrorEquals(ws.mirrorDir, sim.snapshot()));
});

test('RC-15: a baseline taken while every resource changes completes in one pass: a later change in the Change Lists explains each fetch that no longer matches the Resource List', async (t) => {
  // A busy Source: every resource changes right after the Resource List is served (the baseline's
  // fetches find newer bytes, or nothing), and again right after the first Change List (the changes
  // that explain those failures are themselves outdated when fetched).
  const { sim, ws, file } = await sourceRig(
    t,
    34,
    { busyAfterListsNext: 2 },
    { initialResources: 12, logLevel: 'info' },
  );
  const r = await run(['sync', 'sim', '--config', file]);
  assert.equal(r.code, 0, r.out);
  assert.equal(sim.faults.busyAfterListsNext, 0, 'the Source changed twice while being read');
  const named = (name: string) => r.events.filter((e) => e.event === name);
  assert.equal(named('baseline.started').length, 1, r.out);
  assert.equal(named('baseline.completed').length, 1, r.out);
  assert.equal(named('baseline.incomplete').length, 0, r.out);
  const [resolved] = named('baseline.failures_resolved');
  assert.ok(resolved, r.out);
  assert.equal(resolved.failed, 12, 'every listed resource had moved on when fetched');
  assert.equal(resolved.resolved, 12, 'each is explained by a later change in the Change Lists');
  assert.deepEqual(
    r.events.filter((e) => e.event?.startsWith('mirror.')).map((e) => e.event),
    [],
    'no change was reported as failed',
  );
  assert.ok(await mirrorEquals(ws.mirrorDir, sim.snapshot()), 'the mirror equals the Source');
  const audit = await run(['audit', 'sim', '--config', file]);
  assert.equal(audit.code, 0, audit.out);
});
