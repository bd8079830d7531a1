// The test kit's spawnCli: a real child process whose JSON log lines a test waits on, and which it
// stops or crashes for real.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnCli, tempDir } from '../src/testing/index.js';

/** Where tsx resolves (the child runs with `--import tsx`). */
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

/** A script that logs `lines` (JSON or not), then stays up until stopped, or exits when `exit`. */
async function script(dir: string, lines: readonly string[], exit?: number): Promise<string> {
  const file = join(dir, `cli-${lines.length}-${exit ?? 'up'}.mjs`);
  const body = lines.map((l) => `console.log(${JSON.stringify(l)});`).join('\n');
  await writeFile(
    file,
    `${body}\n${exit === undefined ? 'setInterval(() => {}, 1000);' : `process.exit(${exit});`}\n`,
  );
  return file;
}

test('spawnCli: an event logged before or after the wait is found; stop() ends the process', async (t) => {
  const temp = await tempDir('rsnotify-spawn-');
  t.after(() => temp.remove());
  const file = await script(temp.dir, [
    'starting (not JSON)',
    JSON.stringify({ event: 'cli.ready', port: 7 }),
  ]);
  const p = spawnCli(file, [], { cwd: PACKAGE_DIR });
  t.after(() => p.kill9());
  assert.equal((await p.waitForEvent('cli.ready', 20_000)).port, 7);
  assert.equal((await p.waitForEvent('cli.ready')).port, 7, 'an event already seen');
  assert.ok(p.lines.includes('starting (not JSON)'));
  assert.equal(await p.stop(5_000), null, 'ended by the signal, not an exit code');
  assert.equal(p.child.signalCode, 'SIGTERM');
});

test('spawnCli: waiting for an event the process exits without logging fails at its exit, with its last lines', async (t) => {
  const temp = await tempDir('rsnotify-spawn-');
  t.after(() => temp.remove());
  const file = await script(temp.dir, [JSON.stringify({ event: 'cli.other' })], 3);
  const p = spawnCli(file, [], { cwd: PACKAGE_DIR });
  await assert.rejects(p.waitForEvent('cli.ready', 20_000), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'RSN_WAIT_TIMEOUT');
    assert.match(err.message, /exited \(3\) before 'cli\.ready'/);
    assert.match(err.message, /cli\.other/);
    return true;
  });
  assert.equal(await p.exited, 3);
});
