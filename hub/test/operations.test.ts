// The hub as operators run it: the CLI (serve, source add/list/remove, subscriptions), flags,
// RSNOTIFY_HUB_* variables and config files, /healthz, /metrics, logs, and a graceful SIGTERM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  get,
  linkHeader,
  notificationXml,
  postForm,
  publish,
  receiverFor,
  runHubCli,
  spawnHubCli,
  tempDir,
  waitFor,
} from './helpers.js';

test('CLI: source add prints the token once, list/remove work, and serve accepts that token (RT-5)', async (t) => {
  const dir = await tempDir(t);
  const db = join(dir, 'hub.db');
  const added = await runHubCli([
    'source',
    'add',
    'library',
    '--topic-prefix',
    'http://lib.test/a/',
    'http://lib.test/b/',
    '--db',
    db,
  ]);
  assert.equal(added.code, 0, added.lines.join('\n'));
  const event = JSON.parse(added.lines.find((l) => l.startsWith('{'))!) as {
    event: string;
    name: string;
    token: string;
    topicPrefixes: string[];
  };
  assert.equal(event.event, 'source.added');
  assert.deepEqual(event.topicPrefixes, ['http://lib.test/a/', 'http://lib.test/b/']);
  assert.match(event.token, /^rsn_/);
  const dup = await runHubCli([
    'source',
    'add',
    'library',
    '--topic-prefix',
    'http://lib.test/c/',
    '--db',
    db,
  ]);
  assert.notEqual(dup.code, 0, 'a duplicate name is refused');
  const taken = await runHubCli([
    'source',
    'add',
    'other',
    '--topic-prefix',
    'http://lib.test/a/',
    '--db',
    db,
  ]);
  assert.notEqual(taken.code, 0, 'a prefix owned by another Source is refused');

  const listed = await runHubCli(['source', 'list', '--json', '--db', db]);
  assert.equal(listed.code, 0);
  const sources = listed.lines
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { name: string });
  assert.deepEqual(
    sources.map((s) => s.name),
    ['library'],
  );
  assert.ok(!listed.lines.join('\n').includes(event.token), 'the token is never shown again');

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
  const listening = await hub.waitForEvent('hub.listening');
  const url = String(listening.url);
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/hub$/);
  const ok = await publish(url, notificationXml('cli'), {
    link: linkHeader('http://lib.test/a/changes', url),
    authorization: `Bearer ${event.token}`,
  });
  assert.equal(ok.status, 200);

  // Removal while the hub runs takes effect (the hub notices the other connection's commit).
  const removed = await runHubCli(['source', 'remove', 'library', '--db', db]);
  assert.equal(removed.code, 0);
  const refused = await publish(url, notificationXml('cli2'), {
    link: linkHeader('http://lib.test/a/changes', url),
    authorization: `Bearer ${event.token}`,
  });
  assert.equal(refused.status, 403);
  assert.ok(!hub.lines.join('\n').includes(event.token), 'tokens never appear in the logs');
});

test('CLI: subscriptions lists the subscriptions, filtered by --topic', async (t) => {
  const dir = await tempDir(t);
  const db = join(dir, 'hub.db');
  const r = await receiverFor(t);
  const hub = spawnHubCli([
    'serve',
    '--port',
    '0',
    '--db',
    db,
    '--allow-private-networks',
    '--open-publishing',
  ]);
  t.after(() => hub.stop());
  const url = String((await hub.waitForEvent('hub.listening')).url);
  for (const [topic, path] of [
    ['http://x.test/one', '/1'],
    ['http://x.test/two', '/2'],
  ]) {
    assert.equal(
      (
        await postForm(url, {
          'hub.mode': 'subscribe',
          'hub.topic': topic!,
          'hub.callback': r.url(path!),
          'hub.secret': 'never-printed',
        })
      ).status,
      202,
    );
  }
  await hub.waitForEvent('subscription.verified');
  await waitFor(
    () => hub.lines.filter((l) => l.includes('"subscription.verified"')).length === 2,
    'both verified',
  );
  const all = await runHubCli(['subscriptions', '--db', db]);
  const rows = all.lines
    .filter((l) => l.startsWith('{'))
    .map(
      (l) => JSON.parse(l) as { topic: string; callback: string; state: string; signed: boolean },
    );
  assert.equal(rows.length, 2);
  assert.ok(rows.every((x) => x.state === 'active' && x.signed));
  assert.ok(!all.lines.join('\n').includes('never-printed'), 'secrets are not printed');
  const one = await runHubCli([
    'subscriptions',
    '--topic',
    'http://x.test/two',
    '--db',
    db,
    '--show-callbacks',
  ]);
  const filtered = one.lines
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { callback: string });
  assert.deepEqual(
    filtered.map((x) => x.callback),
    [r.url('/2')],
  );
  // Structured logs name topic and callback.
  const verified = hub.lines
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        return {};
      }
    })
    .find((e) => e.event === 'subscription.verified')!;
  assert.ok(verified.topic && verified.callback);
  assert.ok(!hub.lines.join('\n').includes('never-printed'), 'secrets never logged');
});

test('configuration: RSNOTIFY_HUB_* variables and a YAML config file, with flags taking precedence; invalid config is refused', async (t) => {
  const dir = await tempDir(t);
  const config = join(dir, 'hub.yaml');
  await writeFile(
    config,
    `dbFile: ${join(dir, 'from-config.db')}\npublicUrl: http://hub.example.test/websub\nport: 0\nlogLevel: info\n`,
  );
  const hub = spawnHubCli(
    ['serve', '--config', config, '--public-url', 'http://flag.example.test/endpoint'],
    { RSNOTIFY_HUB_PORT: '0', RSNOTIFY_HUB_OPEN_PUBLISHING: 'true' },
  );
  t.after(() => hub.stop());
  const listening = await hub.waitForEvent('hub.listening');
  assert.equal(
    listening.url,
    'http://flag.example.test/endpoint',
    'the flag beats the config file',
  );
  assert.equal(listening.openPublishing, true, 'the environment variable applies');
  assert.equal(listening.db, join(dir, 'from-config.db'), 'the config file applies');
  // The endpoint is served at the public URL's path.
  const port = Number(listening.port);
  const a = await publish(`http://127.0.0.1:${port}/endpoint`, notificationXml('cfg'), {
    link: linkHeader('http://any.test/t', 'http://flag.example.test/endpoint'),
  });
  assert.equal(a.status, 200);
  assert.equal(
    (
      await publish(`http://127.0.0.1:${port}/hub`, notificationXml('cfg'), {
        link: linkHeader('http://any.test/t', 'x'),
      })
    ).status,
    404,
  );

  await writeFile(
    join(dir, 'bad.json'),
    JSON.stringify({ dbFile: 'x.db', port: 'eighty', bogus: true }),
  );
  const bad = await runHubCli(['serve', '--config', join(dir, 'bad.json')]);
  assert.equal(bad.code, 2);
  assert.match(bad.lines.join('\n'), /invalid/);
  const badEnv = await runHubCli(['serve', '--db', join(dir, 'x.db')], {
    RSNOTIFY_HUB_LEASE_MIN: 'soon',
  });
  assert.equal(badEnv.code, 2);
});

test('operations: /healthz reports the database, /metrics has the hub series, SIGTERM stops cleanly', async (t) => {
  const dir = await tempDir(t);
  const hub = spawnHubCli([
    'serve',
    '--port',
    '0',
    '--db',
    join(dir, 'hub.db'),
    '--open-publishing',
    '--allow-private-networks',
  ]);
  t.after(() => hub.stop());
  const url = String((await hub.waitForEvent('hub.listening')).url);
  const health = await get(new URL('/healthz', url).href);
  assert.equal(health.status, 200);
  assert.deepEqual(JSON.parse(health.text), { ok: true, database: 'ok' });
  const r = await receiverFor(t);
  await postForm(url, {
    'hub.mode': 'subscribe',
    'hub.topic': 'http://m.test/t',
    'hub.callback': r.url('/m'),
  });
  await hub.waitForEvent('subscription.verified');
  assert.equal(
    (await publish(url, notificationXml('m'), { link: linkHeader('http://m.test/t', url) })).status,
    200,
  );
  await waitFor(() => r.deliveries.length === 1, 'delivery');
  const metrics = await waitFor(async () => {
    const m = (await get(new URL('/metrics', url).href)).text;
    return m.includes('rsnotify_hub_deliveries_total{outcome="delivered"} 1') ? m : undefined;
  }, 'delivered counted');
  for (const series of [
    'rsnotify_hub_subscriptions{state="active"} 1',
    'rsnotify_hub_notifications_accepted_total{kind="resourcesync"} 1',
    'rsnotify_hub_delivery_queue_depth 0',
    'rsnotify_hub_delivery_latency_seconds_count 1',
  ])
    assert.ok(metrics.includes(series), series);
  assert.equal(await hub.stop(), 0, 'SIGTERM exits 0');
  assert.ok(hub.lines.some((l) => l.includes('"hub.stopped"')));
});
