// Document order governs (RC-23, RC-25): deletes without `datetime` but with an old `lastmod` are
// applied, and `sync` exits non-zero with a last line that says why when it cannot apply everything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mirrorEquals, runSubscriberCli as run, syncedRig as rig } from './subscriber-helpers.js';

test('RC-23/RC-25: deletes without datetime and with an old lastmod are applied (document order governs)', async (t) => {
  const { sim, ws, file } = await rig(t, 34, { timelessDeletes: 1 });
  const before = [...sim.snapshot().keys()];
  await sim.makeChanges([{ path: 'r/extra-1.txt', change: 'created', bytes: 'x' }]);
  assert.equal((await run(['sync', 'sim', '--config', file])).code, 0);
  // Deletes of resources last modified long before the position, after a newer change in the list.
  await sim.makeChanges([
    { path: 'r/extra-2.txt', change: 'created', bytes: 'y' },
    ...before.slice(0, 2).map((uri) => ({
      rawTarget: new URL(uri).pathname + new URL(uri).search,
      change: 'deleted' as const,
    })),
  ]);
  const r = await run(['sync', 'sim', '--config', file]);
  assert.equal(r.code, 0, r.out);
  assert.ok(
    await mirrorEquals(ws.mirrorDir, sim.snapshot()),
    'the two deleted files are gone from the mirror',
  );
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
