// The subscriber against Sources that bend the spec, as a user runs it (`sync`, `audit` child
// processes): coverage is proven, never assumed (RC-21..RC-24), entries without a change time are
// placed by document order (RC-23), and `sync` says in its exit code and last line what it proved.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSourceSimulator, type SourceSimulator } from '../src/source-simulator/index.js';
import { spawnCli } from '../src/harness/index.js';
import { mirrorEquals, subscriberConfig, workspace, writeConfigFile, type Workspace } from './subscriber-helpers.js';

async function run(args: string[]): Promise<{ code: number | null; out: string; last: string }> {
  const p = spawnCli('subscriber/src/cli.ts', args);
  const code = await p.exited;
  const stdout = p.lines.filter((l) => !l.startsWith('{'));
  return { code, out: p.lines.join('\n'), last: stdout[stdout.length - 1] ?? '' };
}

async function rig(t: { after(fn: () => Promise<void> | void): void }, seed: number, faults: Partial<SourceSimulator['faults']>): Promise<{ sim: SourceSimulator; ws: Workspace; file: string }> {
  const ws = await workspace('rsn-fidelity-');
  t.after(() => ws.remove());
  const sim = await startSourceSimulator({ seed, initialResources: 20, faults });
  t.after(() => sim.close());
  const file = await writeConfigFile(ws, subscriberConfig(ws, sim.wellKnownUrl, {}, { logLevel: 'warn' }));
  const first = await run(['sync', 'sim', '--config', file]);
  assert.equal(first.code, 0, first.out);
  return { sim, ws, file };
}

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

test('lossless paths: collections that are also files and names with %2F mirror byte-identically (audit and sync agree)', async (t) => {
  const { sim, ws, file } = await rig(t, 36, { pathQuirks: 1 });
  for (let i = 0; i < 6; i++) await sim.changeBatch(10);
  const snapshot = sim.snapshot();
  const uris = [...snapshot.keys()];
  assert.ok(uris.some((u) => u.includes('%2F')), 'the Source has a name with an encoded /');
  assert.ok(uris.some((u) => uris.some((v) => v.startsWith(`${u}/`))), 'the Source has a file that is also a directory');
  const r = await run(['sync', 'sim', '--config', file]);
  assert.equal(r.code, 0, r.out);
  assert.doesNotMatch(r.out, /RSN_PATH_CONFLICT|RSN_PATH_ESCAPE/);
  assert.ok(await mirrorEquals(ws.mirrorDir, snapshot));
  const audit = await run(['audit', 'sim', '--config', file]);
  assert.equal(audit.code, 0, audit.out);
});

test('audit --repair fetches what is missing or different and removes extras; audit lists the first differing URIs', async (t) => {
  const { sim, ws, file } = await rig(t, 37, {});
  const { unlink, writeFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const { uriToMirrorPath } = await import('@rsnotify/subscriber');
  const [a, b] = [...sim.snapshot().keys()];
  await unlink(uriToMirrorPath(ws.mirrorDir, a!));
  await writeFile(uriToMirrorPath(ws.mirrorDir, b!), 'tampered');
  await writeFile(join(ws.mirrorDir, new URL(sim.baseUrl).host.replace(':', '%3A'), 'stray.txt'), 'x');
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
  assert.equal(await mirrorEquals(ws.mirrorDir, sim.snapshot()), false, 'the lists never said: the mirror diverged');
  const repair = await run(['audit', 'sim', '--repair', '--config', file]);
  assert.equal(repair.code, 0, repair.out);
  assert.ok(await mirrorEquals(ws.mirrorDir, sim.snapshot()), repair.out);
});
