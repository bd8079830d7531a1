// The subscriber against Sources that bend the spec, as a user runs it (`sync`, `audit` child
// processes): coverage is proven, never assumed (RC-21..RC-24), entries without a change time are
// placed by document order (RC-23), and `sync` says in its exit code and last line what it proved.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mirrorEquals, runSubscriberCli as run, syncedRig as rig } from './subscriber-helpers.js';

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
