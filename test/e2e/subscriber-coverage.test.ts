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
  assert.ok(await mirrorEquals(ws.mirrorDir, sim.snapshot()), 'the re-baseline mirrored the Source');
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

test('RC-23/RC-25: deletes without datetime and with an old lastmod are applied (document order governs)', async (t) => {
  const { sim, ws, file } = await rig(t, 34, { timelessDeletes: 1 });
  const before = [...sim.snapshot().keys()];
  await sim.makeChanges([{ path: 'r/extra-1.txt', change: 'created', bytes: 'x' }]);
  assert.equal((await run(['sync', 'sim', '--config', file])).code, 0);
  // Deletes of resources last modified long before the position, after a newer change in the list.
  await sim.makeChanges([
    { path: 'r/extra-2.txt', change: 'created', bytes: 'y' },
    ...before.slice(0, 2).map((uri) => ({ rawTarget: new URL(uri).pathname + new URL(uri).search, change: 'deleted' as const })),
  ]);
  const r = await run(['sync', 'sim', '--config', file]);
  assert.equal(r.code, 0, r.out);
  assert.ok(await mirrorEquals(ws.mirrorDir, sim.snapshot()), 'the two deleted files are gone from the mirror');
  assert.equal((await run(['audit', 'sim', '--config', file])).code, 0);
});

test('sync exits non-zero and its last line says why when it cannot apply everything', async (t) => {
  const { sim, file } = await rig(t, 35, {});
  await sim.changeBatch(3);
  Object.assign(sim.faults, { serverErrorScope: 'resources', serverErrorNext: 1000 });
  const r = await run(['sync', 'sim', '--config', file]);
  assert.notEqual(r.code, 0, r.out);
  assert.match(r.last, /^sim: NOT applied: \d+ change\(s\) failed; syncedUntil /, r.out);
});
