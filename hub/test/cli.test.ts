// The hub CLI's conventions: --version, and usage errors that exit 2 with the command's help.
// (A file of its own: each case starts a CLI process, and operations.test.ts is long already.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runHubCli } from './helpers.js';

test('CLI: --version prints the package version; usage errors exit 2 with the command help', async () => {
  const version = await runHubCli(['--version']);
  assert.equal(version.code, 0);
  assert.ok(version.lines.includes('0.1.0'), version.lines.join('\n'));
  const unknown = await runHubCli(['serve', '--no-such-flag']);
  assert.equal(unknown.code, 2);
  assert.ok(
    unknown.lines.some((l) => l.includes('Usage: rsnotify-hub serve')),
    unknown.lines.join('\n'),
  );
  const badValue = await runHubCli(['serve', '--port', 'abc']);
  assert.equal(badValue.code, 2);
  assert.ok(
    badValue.lines.some((l) => l.includes('--port')),
    badValue.lines.join('\n'),
  );
  assert.ok(
    badValue.lines.some((l) => l.includes('Usage: rsnotify-hub serve')),
    badValue.lines.join('\n'),
  );
});
