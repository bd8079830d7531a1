// `rsnotify-subscriber discover URL --hub HUB`: a Source that advertises no channel, a hub that
// bridges it; discovery asks the hub's lookup endpoint and reports the bridged channel.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHub } from '@rsnotify/hub';
import { startSourceSimulator } from '../src/source-simulator/index.js';
import { spawnCli, waitFor } from '../src/harness/index.js';

test('discover --hub finds the bridged channel of a list-only Source; without --hub it is polling mode', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rsnotify-bridge-discover-'));
  const sim = await startSourceSimulator({ seed: 3, initialResources: 5, listOnly: true });
  const hub = await startHub({
    host: '127.0.0.1',
    port: 0,
    dbFile: join(dir, 'hub.db'),
    allowPrivateNetworks: true,
    logLevel: 'silent',
  });
  t.after(async () => {
    await hub.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await hub.addBridgedSource('sim', sim.wellKnownUrl, { intervalMs: 1_000 });
  await waitFor(async () => (await hub.listBridgedSources())[0]?.changeListUrl, {
    what: 'bridge discovered the Source',
  });

  const plain = spawnCli('subscriber/src/cli.ts', [
    'discover',
    sim.baseUrl,
    '--allow-private-networks',
    '--json',
  ]);
  assert.equal(await plain.exited, 0, plain.lines.join('\n'));
  assert.equal((JSON.parse(plain.lines.join('\n')) as { mode: string }).mode, 'poll');

  // Asked with the base URL; the hub knows the Source by the well-known URI it polls and matches
  // any URL discovery found (here the Change List Index).
  const bridged = spawnCli('subscriber/src/cli.ts', [
    'discover',
    sim.baseUrl,
    '--hub',
    hub.url,
    '--allow-private-networks',
    '--json',
  ]);
  assert.equal(await bridged.exited, 0, bridged.lines.join('\n'));
  const d = JSON.parse(bridged.lines.join('\n')) as {
    mode: string;
    channel: { hub: string; topic: string; via: string };
  };
  assert.equal(d.mode, 'push');
  assert.deepEqual(
    { hub: d.channel.hub, topic: d.channel.topic, via: d.channel.via },
    { hub: hub.url, topic: `${hub.url}/bridge/sim`, via: 'hub-bridge' },
  );
});
