// Lossless paths (a collection that is also a file, `%2F` in a name) against the simulator's path
// quirks, and start-up validation of the directories the daemon writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { spawnCli } from '../src/harness/index.js';
import {
  mirrorEquals,
  runSubscriberCli as run,
  subscriberConfig,
  syncedRig as rig,
  workspace,
  writeConfigFile,
} from './subscriber-helpers.js';

test('lossless paths: collections that are also files and names with %2F mirror byte-identically (audit and sync agree)', async (t) => {
  const { sim, ws, file } = await rig(t, 36, { pathQuirks: 1 });
  for (let i = 0; i < 6; i++) await sim.changeBatch(10);
  const snapshot = sim.snapshot();
  const uris = [...snapshot.keys()];
  assert.ok(
    uris.some((u) => u.includes('%2F')),
    'the Source has a name with an encoded /',
  );
  assert.ok(
    uris.some((u) => uris.some((v) => v.startsWith(`${u}/`))),
    'the Source has a file that is also a directory',
  );
  const r = await run(['sync', 'sim', '--config', file]);
  assert.equal(r.code, 0, r.out);
  assert.doesNotMatch(r.out, /RSN_PATH_CONFLICT|RSN_PATH_ESCAPE/);
  assert.ok(await mirrorEquals(ws.mirrorDir, snapshot));
  const audit = await run(['audit', 'sim', '--config', file]);
  assert.equal(audit.code, 0, audit.out);
});

test('start-up validation: a mirrorDir that cannot be created is refused at start with one fatal line naming the key and path', async (t) => {
  const ws = await workspace('rsn-fidelity-');
  t.after(() => ws.remove());
  const { writeFile } = await import('node:fs/promises');
  const blocker = join(ws.dir, 'not-a-dir');
  await writeFile(blocker, 'a regular file');
  const cfg = subscriberConfig(
    ws,
    'http://127.0.0.1:9/',
    { mirrorDir: join(blocker, 'mirror') },
    { logLevel: 'info' },
  );
  const file = await writeConfigFile(ws, cfg);
  const p = spawnCli('subscriber/src/cli.ts', ['run', '--config', file]);
  const code = await p.exited;
  assert.notEqual(code, 0);
  const fatal = p.lines.filter((l) => l.includes('"subscriber.start_failed"'));
  assert.equal(fatal.length, 1, p.lines.join('\n'));
  assert.match(fatal[0]!, /sources\[0\]\.mirrorDir/);
  assert.ok(fatal[0]!.includes(join(blocker, 'mirror')), fatal[0]);
  assert.equal(p.lines.filter((l) => l.includes('mirror.apply_failed')).length, 0);
});
