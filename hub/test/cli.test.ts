// The hub CLI's conventions: --version, usage errors that exit 2 with the command's help, and
// serve's configuration (flag > environment > file > default) seen through a running hub.
// (A file of its own: each case starts a CLI process, and operations.test.ts is long already.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { get, runHubCli, spawnHubCli, tempDir } from './helpers.js';

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

test('CLI: serve takes a config file with the flag names as keys, the environment over it and a flag over both', async (t) => {
  const dir = await tempDir(t);
  const db = join(dir, 'from-file.db');
  const config = join(dir, 'hub.yaml');
  // The file asks for port 2 and warn-level logs; the environment for port 1 and info; the flag
  // for port 0. Only flag > environment > file gives an ephemeral port and the hub.listening line.
  await writeFile(
    config,
    [
      `db: ${db}`,
      'port: 2',
      'publicUrl: http://file.example.test/from-file',
      'logLevel: warn',
      'openPublishing: true',
      'leaseMin: 60',
      'retryInitialMs: 2s',
      '',
    ].join('\n'),
  );
  const hub = spawnHubCli(['serve', '--config', config, '--port', '0'], {
    RSNOTIFY_HUB_PORT: '1',
    RSNOTIFY_HUB_LOG_LEVEL: 'info',
    RSNOTIFY_HUB_PUBLIC_URL: 'http://env.example.test/from-env',
  });
  t.after(() => hub.stop());
  const listening = await hub.waitForEvent('hub.listening');
  const port = Number(listening.port);
  assert.ok(port > 2, `the flag's port 0 wins over the environment's and the file's: ${port}`);
  assert.equal(listening.url, 'http://env.example.test/from-env', 'environment over file');
  assert.equal(listening.db, db, 'the file key db');
  assert.equal(listening.openPublishing, true, 'the file key openPublishing');
  const health = await get(`http://127.0.0.1:${port}/healthz`);
  assert.equal(health.status, 200);
  assert.equal((JSON.parse(health.text) as { ok: boolean }).ok, true);
  // The endpoint is served at the public URL's path, the environment's one.
  assert.equal((await get(`http://127.0.0.1:${port}/from-env`)).status, 200);
  assert.ok(
    !hub.lines.some((l) => l.includes('deprecated')),
    `no deprecation warning for the new keys:\n${hub.lines.join('\n')}`,
  );
});

test('CLI: a bad config file value is one RSN_CONFIG_INVALID line naming the file and key, exit 2, no help', async (t) => {
  const dir = await tempDir(t);
  const config = join(dir, 'hub.json');
  await writeFile(config, JSON.stringify({ db: join(dir, 'x.db'), leaseMax: 'long' }));
  const bad = await runHubCli(['serve', '--config', config]);
  assert.equal(bad.code, 2);
  const errors = bad.lines.filter((l) => l.startsWith('rsnotify-hub:'));
  assert.equal(errors.length, 1, bad.lines.join('\n'));
  assert.match(errors[0]!, /RSN_CONFIG_INVALID: .*hub\.json: invalid leaseMax/);
  assert.ok(!bad.lines.some((l) => l.includes('Usage:')), bad.lines.join('\n'));
});
