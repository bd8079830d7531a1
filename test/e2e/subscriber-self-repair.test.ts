// Self-repair as a user meets it (child processes against the simulator): `audit --repair` fixes
// what differs, and a change the Source never announced is found by reconciliation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mirrorEquals, runSubscriberCli as run, syncedRig as rig } from './subscriber-helpers.js';

test('audit --repair fetches what is missing or different and removes extras; audit lists the first differing URIs', async (t) => {
  const { sim, ws, file } = await rig(t, 37, {});
  const { unlink, writeFile } = await import('node:fs/promises');
  const { uriToMirrorPath } = await import('@rsnotify/subscriber');
  const [a, b] = [...sim.snapshot().keys()];
  await unlink(uriToMirrorPath(ws.mirrorDir, a!));
  await writeFile(uriToMirrorPath(ws.mirrorDir, b!), 'tampered');
  await writeFile(
    join(ws.mirrorDir, new URL(sim.baseUrl).host.replace(':', '%3A'), 'stray.txt'),
    'x',
  );
  const audit = await run(['audit', 'sim', '--config', file]);
  assert.equal(audit.code, 1, audit.out);
  assert.ok(audit.out.includes(`missing ${a}`) && audit.out.includes(`different ${b}`), audit.out);
  const repair = await run(['audit', 'sim', '--repair', '--config', file]);
  assert.equal(repair.code, 0, repair.out);
  assert.match(repair.out, /repaired: 2 fetched, 1 removed, 0 failed/);
  assert.ok(await mirrorEquals(ws.mirrorDir, sim.snapshot()));
  assert.equal((await run(['audit', 'sim', '--config', file])).code, 0);
});

test('a change the Source never announced is found only by reconciliation (audit --repair)', async (t) => {
  const { sim, ws, file } = await rig(t, 38, {});
  sim.faults.loseChangeNext = 3;
  await sim.changeBatch(8);
  const synced = await run(['sync', 'sim', '--config', file]);
  assert.equal(synced.code, 0, synced.out);
  assert.equal(
    await mirrorEquals(ws.mirrorDir, sim.snapshot()),
    false,
    'the lists never said: the mirror diverged',
  );
  const repair = await run(['audit', 'sim', '--repair', '--config', file]);
  assert.equal(repair.code, 0, repair.out);
  assert.ok(await mirrorEquals(ws.mirrorDir, sim.snapshot()), repair.out);
});
