// Convergence suite (README promise 3, RN-5, M-7): hub, Source simulator and
// subscriber run together with random changes and every notification fault on; after the changes
// stop, the mirror must become byte-identical to the Source, `syncedUntil` must equal the Source's
// last `until`, and `audit` must report in sync. The second test restarts the hub once and kills
// the subscriber with -9 once during the run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHub } from '@rsnotify/hub';
import { startSourceSimulator, type SourceSimulator } from '../src/source-simulator/index.js';
import { diffMirror, freePort, isIdentical, spawnCli, waitFor, sleep, type ManagedProcess } from '../src/harness/index.js';

const HUB_CLI = 'hub/src/cli.ts';
const SUBSCRIBER_CLI = 'subscriber/src/cli.ts';

interface Rig {
  dir: string;
  hubPort: number;
  hubArgs: string[];
  hub: ManagedProcess;
  sim: SourceSimulator;
  configFile: string;
  mirrorDir: string;
  subscriber: ManagedProcess;
}

async function startRig(seed: number): Promise<Rig> {
  const dir = mkdtempSync(join(tmpdir(), 'rsnotify-convergence-'));
  const dbFile = join(dir, 'hub.db');
  const hubPort = await freePort();
  const hubUrl = `http://127.0.0.1:${hubPort}/hub`;

  const sim = await startSourceSimulator({ host: '127.0.0.1', port: 0, seed, initialResources: 60 });
  // Register the Source through the hub's own API on the same database, then run the hub as a
  // separate process so it can be restarted for real.
  const registrar = await startHub({ host: '127.0.0.1', port: 0, dbFile, allowPrivateNetworks: true, logLevel: 'silent' });
  const { token } = await registrar.addSource('convergence-source', [sim.topicPrefix]);
  await registrar.close();

  const hubArgs = ['serve', '--host', '127.0.0.1', '--port', String(hubPort), '--public-url', hubUrl, '--db', dbFile,
    '--allow-private-networks', '--lease-min', '1', '--retry-initial-ms', '100', '--retry-max-ms', '2000', '--log-level', 'info'];
  const hub = spawnCli(HUB_CLI, hubArgs);
  await hub.waitForEvent('hub.listening');
  sim.setHub(hubUrl, token);

  const subscriberPort = await freePort();
  const mirrorDir = join(dir, 'mirror');
  const configFile = join(dir, 'subscriber.json');
  writeFileSync(configFile, JSON.stringify({
    listen: { host: '127.0.0.1', port: subscriberPort },
    dataDir: join(dir, 'subscriber-data'),
    allowPrivateNetworks: true,
    logLevel: 'info',
    sources: [{ name: 'sim', url: sim.wellKnownUrl, mirrorDir, gapTimeout: '1s', leaseSeconds: 600 }],
  }));
  const subscriber = spawnCli(SUBSCRIBER_CLI, ['run', '--config', configFile]);
  return { dir, hubPort, hubArgs, hub, sim, configFile, mirrorDir, subscriber };
}

async function subscriberStatus(rig: Rig): Promise<{ syncedUntil?: string; mode?: string; [k: string]: unknown } | undefined> {
  const p = spawnCli(SUBSCRIBER_CLI, ['status', '--config', rig.configFile, '--json']);
  await p.exited;
  const text = p.lines.join('\n');
  const start = text.indexOf('[') >= 0 && (text.indexOf('{') < 0 || text.indexOf('[') < text.indexOf('{')) ? text.indexOf('[') : text.indexOf('{');
  if (start < 0) return undefined;
  const parsed = JSON.parse(text.slice(start)) as unknown;
  const list = Array.isArray(parsed) ? parsed : ((parsed as { sources?: unknown[] }).sources ?? [parsed]);
  return list[0] as { syncedUntil?: string };
}

async function waitForSubscription(rig: Rig): Promise<void> {
  await waitFor(async () => (await subscriberStatus(rig))?.syncedUntil !== undefined, { timeoutMs: 60_000, intervalMs: 500, what: 'subscriber position established' });
}

function allFaultsOn(sim: SourceSimulator): void {
  Object.assign(sim.faults, { dropProbability: 0.08, reorderProbability: 0.15, duplicateProbability: 0.1 });
}

function allFaultsOff(sim: SourceSimulator): void {
  Object.assign(sim.faults, { dropProbability: 0, reorderProbability: 0, duplicateProbability: 0 });
}

async function produce(sim: SourceSimulator, ms: number, batchEveryMs = 50): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    await sim.changeBatch(1 + Math.floor(Math.random() * 5));
    await sleep(batchEveryMs);
  }
}

async function assertConverged(rig: Rig): Promise<void> {
  allFaultsOff(rig.sim);
  // A dropped LAST notification leaves no later `from` to reveal the gap, so the run ends with one
  // clean batch: its arrival exposes any earlier loss (RN-5) and the subscriber repairs it.
  await rig.sim.changeBatch(1);
  await rig.sim.flush();
  const target = rig.sim.lastUntil();
  assert.ok(target, 'the Source made notifications');
  try {
    await waitFor(async () => (await subscriberStatus(rig))?.syncedUntil === target, {
      timeoutMs: 90_000, intervalMs: 500, what: `syncedUntil = the Source's last until ${target}`,
    });
  } catch (err) {
    // The subscriber's own account of what it waits for is the fastest way to the cause.
    const status = await subscriberStatus(rig).catch(() => undefined);
    const events = rig.subscriber.lines.filter((l) => !l.includes('"notification.received"')).slice(-40);
    throw new Error(`${(err as Error).message}\nstatus: ${JSON.stringify(status)}\nsubscriber log (last lines):\n${events.join('\n')}`, { cause: err });
  }
  const comparison = await waitFor(async () => { const d = await diffMirror(rig.mirrorDir, rig.sim.snapshot()); return isIdentical(d) ? d : undefined; }, {
    timeoutMs: 30_000, intervalMs: 500, what: 'mirror byte-identical to the Source, no extra files',
  });
  assert.ok(comparison.checked > 0);
  const audit = spawnCli(SUBSCRIBER_CLI, ['audit', 'sim', '--config', rig.configFile]);
  assert.equal(await audit.exited, 0, `audit reports in sync:\n${audit.lines.join('\n')}`);
}

async function stopRig(rig: Rig): Promise<void> {
  await rig.subscriber.stop();
  await rig.hub.stop();
  await rig.sim.close();
  rmSync(rig.dir, { recursive: true, force: true });
}

test('convergence: random changes with drops, reordering and duplicates end in a byte-identical mirror (promise 3, RN-5, M-7)', async (t) => {
  const rig = await startRig(11);
  t.after(() => stopRig(rig));
  await waitForSubscription(rig);
  allFaultsOn(rig.sim);
  await produce(rig.sim, 12_000);
  await assertConverged(rig);
});

test('convergence survives a hub restart and a subscriber killed with -9 mid-stream', async (t) => {
  const rig = await startRig(23);
  t.after(() => stopRig(rig));
  await waitForSubscription(rig);
  allFaultsOn(rig.sim);
  await produce(rig.sim, 4_000);

  // Hub restart: stop it (in-flight deliveries stay queued in SQLite), keep changing, start it again.
  await rig.hub.stop();
  await produce(rig.sim, 1_500);
  rig.hub = spawnCli(HUB_CLI, rig.hubArgs);
  await rig.hub.waitForEvent('hub.listening');
  await produce(rig.sim, 3_000);

  // Subscriber crash: nothing flushed, nothing said; changes continue while it is down.
  await rig.subscriber.kill9();
  await produce(rig.sim, 1_500);
  rig.subscriber = spawnCli(SUBSCRIBER_CLI, ['run', '--config', rig.configFile]);
  await produce(rig.sim, 3_000);

  await assertConverged(rig);
});
