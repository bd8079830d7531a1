// Bridged Sources as operators manage them: `source add NAME --poll URL [--poll-interval]`, `source
// list` with the bridged topic, `source remove`, bad input refused with exit code 2, and a running
// hub picking up a Source the CLI added from another process.
import { test } from 'node:test';
import { testPostgres } from '../../scripts/postgres-server.mjs';
import { openPostgresRepository } from '../src/store/index.js';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FakeSource } from './bridge-source.js';
import { get, runHubCli, spawnHubCli, tempDir, waitFor } from './helpers.js';

const pg = await testPostgres();
const pgSkip = 'skip' in pg ? pg.skip : false;

test('CLI: source add --poll, list shows the bridged topic, remove stops it; a running hub starts polling without a restart', async (t) => {
  const dir = await tempDir(t);
  const db = join(dir, 'hub.db');
  const source = await FakeSource.start();
  t.after(() => source.close());

  const hub = spawnHubCli([
    'serve',
    '--port',
    '0',
    '--db',
    db,
    '--allow-private-networks',
    '--log-level',
    'info',
  ]);
  t.after(() => hub.stop());
  const url = String((await hub.waitForEvent('hub.listening')).url);

  const added = await runHubCli([
    'source',
    'add',
    'lib',
    '--poll',
    source.baseUrl,
    '--poll-interval',
    '500ms',
    '--public-url',
    url,
    '--db',
    db,
  ]);
  assert.equal(added.code, 0, added.lines.join('\n'));
  const event = JSON.parse(added.lines.find((l) => l.startsWith('{'))!) as Record<string, unknown>;
  assert.deepEqual(event, {
    event: 'source.bridged',
    name: 'lib',
    poll: `${source.baseUrl}/`,
    pollIntervalMs: 500,
    topic: `${url}/bridge/lib`,
  });

  const listed = await runHubCli(['source', 'list', '--public-url', url, '--db', db]);
  assert.equal(listed.code, 0);
  assert.ok(
    listed.lines.some(
      (l) => l.startsWith('lib\tbridged: polls') && l.includes(`topic ${url}/bridge/lib`),
    ),
    listed.lines.join('\n'),
  );

  // The running hub notices the other connection's commit and polls the new Source.
  await waitFor(
    () => source.requestsTo('/changelist.xml').length > 0,
    'the running hub polls the Source added by the CLI',
    20_000,
  );
  assert.equal(
    (await get(`${url}/bridge?source=${encodeURIComponent(source.baseUrl)}`)).status,
    200,
  );

  const dup = await runHubCli(['source', 'add', 'lib', '--poll', source.baseUrl, '--db', db]);
  assert.notEqual(dup.code, 0, 'a duplicate name is refused');
  const both = await runHubCli([
    'source',
    'add',
    'x',
    '--poll',
    source.baseUrl,
    '--topic-prefix',
    'http://a.test/',
    '--db',
    db,
  ]);
  assert.equal(both.code, 2);
  const badInterval = await runHubCli([
    'source',
    'add',
    'y',
    '--poll',
    source.baseUrl,
    '--poll-interval',
    'often',
    '--db',
    db,
  ]);
  assert.equal(badInterval.code, 2);
  assert.match(badInterval.lines.join('\n'), /poll-interval/);

  const removed = await runHubCli(['source', 'remove', 'lib', '--db', db]);
  assert.equal(removed.code, 0);
  await waitFor(
    async () => (await get(`${url}/bridge/lib`)).status === 404,
    'the bridged topic is gone once removed',
    20_000,
  );
});

test(
  'CLI: source add --poll on the PostgreSQL engine registers the bridged Source there',
  { skip: pgSkip },
  async () => {
    if ('skip' in pg) return;
    const db = pg.newDatabase('bridge_cli');
    const r = await runHubCli([
      'source',
      'add',
      'lib',
      '--poll',
      'http://source.test/',
      '--db',
      db,
    ]);
    assert.equal(r.code, 0, r.lines.join('\n'));
    const repo = await openPostgresRepository(db, { listen: false });
    try {
      assert.deepEqual(
        (await repo.bridge.listBridgedSources()).map((s) => [s.name, s.pollUrl]),
        [['lib', 'http://source.test/']],
      );
    } finally {
      await repo.close();
    }
  },
);
