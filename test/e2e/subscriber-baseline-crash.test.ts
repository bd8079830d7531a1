// End to end: the subscriber's CLI killed with -9 in the middle of a baseline (M-7, RC-15), a child
// process so the crash is real. The baseline records a resource only after its file is fsync-ed (in
// batches); what was written but not recorded is fetched again when the next run repeats the
// baseline (no position was saved). The mirror must end byte-identical with the Source, with none of
// the writer's temporary files the crash left (the next run removes them first), and `audit` must
// exit 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { isTempFileName } from '@rsnotify/subscriber';
import { startSourceSimulator } from '../src/source-simulator/index.js';
import { spawnCli, waitFor } from '../src/harness/index.js';
import { diffMirror, subscriberConfig, workspace, writeConfigFile } from './subscriber-helpers.js';

const RESOURCES = 2_000;

async function mirroredFiles(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).length;
}

/** The writer's temporary files anywhere in the mirror. */
async function temporaries(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile() && isTempFileName(e.name)).length;
}

test('a subscriber killed with -9 mid-baseline converges byte-identical on the next run; audit exits 0', async (t) => {
  const ws = await workspace('rsn-baseline-kill9-');
  t.after(() => ws.remove());
  const sim = await startSourceSimulator({ seed: 41, initialResources: RESOURCES });
  t.after(() => sim.close());
  const cfg = subscriberConfig(ws, sim.wellKnownUrl, {}, { logLevel: 'info' });
  const file = await writeConfigFile(ws, cfg);

  const first = spawnCli('subscriber/src/cli.ts', ['sync', 'sim', '--config', file]);
  t.after(() => first.kill9());
  await first.waitForEvent('baseline.started', 30_000);
  await waitFor(async () => (await mirroredFiles(ws.mirrorDir)) >= RESOURCES / 10, {
    what: 'part of the baseline written',
    timeoutMs: 60_000,
    intervalMs: 20,
  });
  await first.kill9();
  assert.equal(
    first.lines.some((l) => l.includes('"event":"baseline.completed"')),
    false,
    'killed before the baseline completed',
  );
  assert.ok((await mirroredFiles(ws.mirrorDir)) < RESOURCES, 'the crash left the mirror partial');
  const left = await temporaries(ws.mirrorDir);

  const second = spawnCli('subscriber/src/cli.ts', ['sync', 'sim', '--config', file]);
  assert.equal(await second.exited, 0, second.lines.slice(-10).join('\n'));
  assert.ok(
    second.lines.some((l) => l.includes('"event":"baseline.completed"')),
    'the second run repeated the baseline',
  );
  assert.equal(await temporaries(ws.mirrorDir), 0, 'no temporary file survives the restart');
  // Whatever the kill left (a batch mid-write leaves some, a kill between batches none) was removed
  // at the start of the second run, in one line for the mirror.
  const swept = second.lines
    .filter((l) => l.includes('"event":"mirror.temp_swept"'))
    .map((l) => (JSON.parse(l) as { removed: number }).removed);
  assert.deepEqual(swept, left > 0 ? [left] : [], `${left} temporaries left by the kill`);
  const d = await diffMirror(ws.mirrorDir, sim.snapshot());
  assert.deepEqual(
    { missing: d.missing, different: d.different, extra: d.extra },
    { missing: [], different: [], extra: [] },
  );
  assert.equal(d.checked, RESOURCES);
  const audit = spawnCli('subscriber/src/cli.ts', ['audit', 'sim', '--config', file]);
  assert.equal(await audit.exited, 0, `audit reports in sync:\n${audit.lines.join('\n')}`);
});
