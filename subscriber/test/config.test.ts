import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { callbackBase, loadConfigFile, parseDuration, resolveConfig } from '../src/config.js';

test('durations accept ms numbers and unit strings', () => {
  assert.equal(parseDuration(250), 250);
  assert.equal(parseDuration('250ms'), 250);
  assert.equal(parseDuration('5s'), 5_000);
  assert.equal(parseDuration('1.5s'), 1_500);
  assert.equal(parseDuration('2m'), 120_000);
  assert.equal(parseDuration('1h'), 3_600_000);
  assert.throws(() => parseDuration('soon'));
});

test('defaults are filled and relative paths resolve against the config folder', () => {
  const cfg = resolveConfig(
    {
      dataDir: 'state',
      sources: [{ name: 'a', url: 'http://example.org/', mirrorDir: 'mirror/a' }],
    },
    '/etc/rsn',
  );
  assert.equal(cfg.dataDir, '/etc/rsn/state');
  assert.equal(cfg.listen.host, '127.0.0.1');
  assert.equal(cfg.allowPrivateNetworks, false);
  const s = cfg.sources[0]!;
  assert.equal(s.mirrorDir, '/etc/rsn/mirror/a');
  assert.equal(s.baseline, 'resourcelist');
  assert.equal(s.gapTimeout, 5_000);
  assert.equal(s.fetchConcurrencyPerHost, 4);
});

test('invalid configs are refused with RSN_CONFIG_INVALID naming the field', () => {
  const cases: unknown[] = [
    { sources: [] },
    { dataDir: 'd', sources: [{ name: 'a', url: 'ftp://x/', mirrorDir: 'm' }] },
    { dataDir: 'd', sources: [{ name: '../evil', url: 'http://x/', mirrorDir: 'm' }] },
    {
      dataDir: 'd',
      sources: [{ name: 'a', url: 'http://x/', mirrorDir: 'm', baseline: 'changelist' }],
    },
    {
      dataDir: 'd',
      sources: [
        { name: 'a', url: 'http://x/', mirrorDir: 'm' },
        { name: 'a', url: 'http://y/', mirrorDir: 'n' },
      ],
    },
    {
      dataDir: 'd',
      sources: [{ name: 'a', url: 'http://x/', mirrorDir: 'm', gapTimeout: 'later' }],
    },
    { dataDir: 'd', unknownKey: 1 },
  ];
  for (const c of cases) {
    assert.throws(
      () => resolveConfig(c),
      (err: Error & { code?: string }) => err.code === 'RSN_CONFIG_INVALID',
      JSON.stringify(c),
    );
  }
});

test('hooks take a command (string or argv) or a URL', () => {
  const mk = (hook: unknown) =>
    resolveConfig({
      dataDir: 'd',
      sources: [{ name: 'a', url: 'http://x/', mirrorDir: 'm', hook }],
    }).sources[0]!.hook;
  assert.deepEqual(mk({ command: 'echo hi' }), { command: 'echo hi' });
  assert.deepEqual(mk({ command: ['/bin/true', '-x'] }), { command: ['/bin/true', '-x'] });
  assert.deepEqual(mk({ url: 'http://127.0.0.1:9/hook' }), { url: 'http://127.0.0.1:9/hook' });
  assert.throws(() => mk({ command: 'x', url: 'http://y/' }));
});

test('YAML and JSON files load alike; callback base defaults to the listen address', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'rsn-config-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(
    join(dir, 'a.yaml'),
    'dataDir: ./data\nlisten: { host: 127.0.0.1, port: 0 }\nsources:\n  - name: s1\n    url: http://127.0.0.1:1/\n    mirrorDir: ./m\n    gapTimeout: 2s\n',
  );
  await writeFile(
    join(dir, 'a.json'),
    JSON.stringify({
      dataDir: './data',
      listen: { host: '127.0.0.1', port: 0 },
      sources: [{ name: 's1', url: 'http://127.0.0.1:1/', mirrorDir: './m', gapTimeout: '2s' }],
    }),
  );
  const y = await loadConfigFile(join(dir, 'a.yaml'));
  const j = await loadConfigFile(join(dir, 'a.json'));
  assert.deepEqual(y, j);
  assert.equal(y.dataDir, join(dir, 'data'));
  assert.equal(y.sources[0]!.gapTimeout, 2_000);
  assert.equal(callbackBase(y, 4321), 'http://127.0.0.1:4321');
  assert.equal(
    callbackBase({ ...y, publicUrl: 'https://sub.example.org/rs/' }, 4321),
    'https://sub.example.org/rs',
  );
  await assert.rejects(
    loadConfigFile(join(dir, 'missing.yaml')),
    (err: Error & { code?: string }) => err.code === 'RSN_CONFIG_INVALID',
  );
});

test('the shipped example configuration (packaging/subscriber.example.yaml) is valid and means what its comments say', async () => {
  const file = fileURLToPath(new URL('../packaging/subscriber.example.yaml', import.meta.url));
  const cfg = await loadConfigFile(file);
  assert.equal(cfg.dataDir, '/var/lib/rsnotify-subscriber', "the systemd unit's StateDirectory");
  assert.equal(cfg.allowPrivateNetworks, false);
  assert.ok(cfg.sources.length > 0);
  for (const s of cfg.sources)
    assert.ok(
      s.mirrorDir.startsWith('/var/lib/rsnotify-subscriber/'),
      `${s.name}: a mirror the sandboxed unit may write (${s.mirrorDir})`,
    );
});
