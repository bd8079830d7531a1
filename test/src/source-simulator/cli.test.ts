// The CLI a person runs beside a hub: it prints every URL it serves as one JSON line, serves them,
// makes changes at the given rate, and stops cleanly on SIGTERM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { parseChangeNotification, parseDocument } from '@rsnotify/shared';
import { spawnCli, waitFor } from '../harness/index.js';
import { startCaptureHub } from './capture-hub.js';

test('simulate CLI: prints its URLs, serves the Source, posts notifications to --hub with --token, stops on SIGTERM', async (t) => {
  const hub = await startCaptureHub();
  t.after(() => hub.close());
  const cli = spawnCli('test/src/source-simulator/cli.ts', [
    '--port',
    '0',
    '--hub',
    hub.url,
    '--token',
    'cli-token',
    '--rate',
    '200',
    '--seed',
    '4',
    '--initial',
    '30',
    '--page-size',
    '10',
    '--fault',
    'duplicateProbability=0',
    '--stats-interval',
    '0',
  ]);
  t.after(() => cli.stop());
  const listening = await cli.waitForEvent('simulator.listening');
  const urls = listening as Record<string, string>;
  for (const key of [
    'baseUrl',
    'topicPrefix',
    'wellKnownUrl',
    'capabilityListUrl',
    'topicUrl',
    'resourceListUrl',
    'changeListIndexUrl',
  ]) {
    assert.match(urls[key] ?? '', /^http:\/\/127\.0\.0\.1:\d+(\/|$)/, key);
  }
  assert.ok(!cli.lines.some((l) => l.includes('cli-token')), 'the token is never printed');
  const res = await request(urls.resourceListUrl!);
  assert.equal(res.statusCode, 200);
  assert.equal(
    parseDocument(await res.body.text()).kind,
    'resource-list-index',
    '30 resources, pages of 10',
  );
  await waitFor(() => hub.received.length >= 3, {
    timeoutMs: 30_000,
    what: 'notifications at the capture hub',
  });
  const first = hub.received[0]!;
  assert.equal(first.headers.authorization, 'Bearer cli-token');
  assert.equal(parseChangeNotification(first.body.toString('utf8')).kind, 'change-notification');
  assert.equal(await cli.stop(), 0, 'clean exit on SIGTERM');
  assert.ok(cli.lines.some((l) => l.includes('"simulator.stopping"')));
});

test('simulate CLI: --list-only changes the Change Lists, posts nothing to --hub and advertises no hub', async (t) => {
  const hub = await startCaptureHub();
  t.after(() => hub.close());
  const cli = spawnCli('test/src/source-simulator/cli.ts', [
    '--port',
    '0',
    '--hub',
    hub.url,
    '--list-only',
    '--rate',
    '200',
    '--stats-interval',
    '0',
  ]);
  t.after(() => cli.stop());
  const urls = (await cli.waitForEvent('simulator.listening')) as Record<string, unknown>;
  assert.equal(urls.listOnly, true);
  assert.equal(urls.hub, null);
  // Changes are made: the Change List Index grows entries (the lists carry them).
  const changeList = await waitFor(
    async () => {
      const r = await request(String(urls.changeListIndexUrl));
      const doc = parseDocument(await r.body.text());
      return doc.entries.length > 0 ? doc : undefined;
    },
    { timeoutMs: 30_000, what: 'a Change List listed' },
  );
  assert.ok(changeList.entries.length > 0);
  const cap = parseDocument(await (await request(String(urls.capabilityListUrl))).body.text());
  assert.ok(!cap.links.some((l) => l.rel === 'hub'), 'no hub advertised in the Capability List');
  assert.equal(hub.received.length, 0, 'nothing posted to the hub');
  assert.equal(await cli.stop(), 0);
});
