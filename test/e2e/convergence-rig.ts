// The convergence rig: hub (a real process), Source simulator and subscriber daemon together, with
// the checks that the mirror ends byte-identical to the Source (convergence*.test.ts).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHub } from '@rsnotify/hub';
import { compareDateTime, parseDateTime } from '@rsnotify/shared';
import { startSourceSimulator, type SourceSimulator } from '../src/source-simulator/index.js';
import {
  diffMirror,
  freePort,
  isIdentical,
  spawnCli,
  waitFor,
  sleep,
  type ManagedProcess,
  type MirrorDiff,
} from '../src/harness/index.js';

export const HUB_CLI = 'hub/src/cli.ts';
export const SUBSCRIBER_CLI = 'subscriber/src/cli.ts';

export interface Rig {
  dir: string;
  hubPort: number;
  hubArgs: string[];
  hub: ManagedProcess;
  sim: SourceSimulator;
  configFile: string;
  mirrorDir: string;
  subscriber: ManagedProcess;
}

export async function startRig(seed: number, source: Record<string, unknown> = {}): Promise<Rig> {
  const dir = mkdtempSync(join(tmpdir(), 'rsnotify-convergence-'));
  const dbFile = join(dir, 'hub.db');
  const hubPort = await freePort();
  const hubUrl = `http://127.0.0.1:${hubPort}/hub`;

  const sim = await startSourceSimulator({
    host: '127.0.0.1',
    port: 0,
    seed,
    initialResources: 60,
  });
  // Register the Source through the hub's own API on the same database, then run the hub as a
  // separate process so it can be restarted for real.
  const registrar = await startHub({
    host: '127.0.0.1',
    port: 0,
    dbFile,
    allowPrivateNetworks: true,
    logLevel: 'silent',
  });
  const { token } = await registrar.addSource('convergence-source', [sim.topicPrefix]);
  await registrar.close();

  const hubArgs = [
    'serve',
    '--host',
    '127.0.0.1',
    '--port',
    String(hubPort),
    '--public-url',
    hubUrl,
    '--db',
    dbFile,
    '--allow-private-networks',
    '--lease-min',
    '1',
    '--retry-initial-ms',
    '100',
    '--retry-max-ms',
    '2000',
    '--log-level',
    'info',
  ];
  const hub = spawnCli(HUB_CLI, hubArgs);
  await hub.waitForEvent('hub.listening');
  sim.setHub(hubUrl, token);

  const subscriberPort = await freePort();
  const mirrorDir = join(dir, 'mirror');
  const configFile = join(dir, 'subscriber.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      listen: { host: '127.0.0.1', port: subscriberPort },
      dataDir: join(dir, 'subscriber-data'),
      allowPrivateNetworks: true,
      logLevel: 'info',
      sources: [
        {
          name: 'sim',
          url: sim.wellKnownUrl,
          mirrorDir,
          gapTimeout: '1s',
          leaseSeconds: 600,
          ...source,
        },
      ],
    }),
  );
  const subscriber = spawnCli(SUBSCRIBER_CLI, ['run', '--config', configFile]);
  return { dir, hubPort, hubArgs, hub, sim, configFile, mirrorDir, subscriber };
}

export async function subscriberStatus(
  rig: Rig,
): Promise<{ syncedUntil?: string; mode?: string; [k: string]: unknown } | undefined> {
  const p = spawnCli(SUBSCRIBER_CLI, ['status', '--config', rig.configFile, '--json']);
  await p.exited;
  const text = p.lines.join('\n');
  const start =
    text.indexOf('[') >= 0 && (text.indexOf('{') < 0 || text.indexOf('[') < text.indexOf('{'))
      ? text.indexOf('[')
      : text.indexOf('{');
  if (start < 0) return undefined;
  const parsed = JSON.parse(text.slice(start)) as unknown;
  const list = Array.isArray(parsed)
    ? parsed
    : ((parsed as { sources?: unknown[] }).sources ?? [parsed]);
  return list[0] as { syncedUntil?: string };
}

export async function waitForSubscription(rig: Rig): Promise<void> {
  await waitFor(async () => (await subscriberStatus(rig))?.syncedUntil !== undefined, {
    timeoutMs: 60_000,
    intervalMs: 500,
    what: 'subscriber position established',
  });
}

export function allFaultsOn(sim: SourceSimulator): void {
  Object.assign(sim.faults, {
    dropProbability: 0.08,
    reorderProbability: 0.15,
    duplicateProbability: 0.1,
  });
}

export function allFaultsOff(sim: SourceSimulator): void {
  Object.assign(sim.faults, { dropProbability: 0, reorderProbability: 0, duplicateProbability: 0 });
}

export async function produce(sim: SourceSimulator, ms: number, batchEveryMs = 50): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    await sim.changeBatch(1 + Math.floor(Math.random() * 5));
    await sleep(batchEveryMs);
  }
}

export async function assertConverged(rig: Rig): Promise<void> {
  allFaultsOff(rig.sim);
  // A dropped LAST notification leaves no later `from` to reveal the gap, so the run ends with one
  // clean batch: its arrival exposes any earlier loss (RN-5) and the subscriber repairs it.
  await rig.sim.changeBatch(1);
  await rig.sim.flush();
  const target = rig.sim.lastUntil();
  assert.ok(target, 'the Source made notifications');
  try {
    // A catch-up may prove coverage past the last change (an open Change List proves it up to the
    // time it was read, RC-22), so the position reaches the last until or goes beyond it.
    const reached = (synced: string | undefined): boolean =>
      synced !== undefined && compareDateTime(parseDateTime(synced), parseDateTime(target)) >= 0;
    await waitFor(async () => reached((await subscriberStatus(rig))?.syncedUntil), {
      timeoutMs: 90_000,
      intervalMs: 500,
      what: `syncedUntil at or past the Source's last until ${target}`,
    });
  } catch (err) {
    // The subscriber's own account of what it waits for is the fastest way to the cause.
    const status = await subscriberStatus(rig).catch(() => undefined);
    const events = rig.subscriber.lines
      .filter((l) => !l.includes('"notification.received"'))
      .slice(-40);
    throw new Error(
      `${(err as Error).message}\nstatus: ${JSON.stringify(status)}\nsubscriber log (last lines):\n${events.join('\n')}`,
      { cause: err },
    );
  }
  let last: MirrorDiff | undefined;
  const comparison = await waitFor(
    async () => {
      last = await diffMirror(rig.mirrorDir, rig.sim.snapshot());
      return isIdentical(last) ? last : undefined;
    },
    {
      timeoutMs: 30_000,
      intervalMs: 500,
      what: 'mirror byte-identical to the Source, no extra files',
    },
  ).catch((err: unknown) => {
    // Which files differ, and what the subscriber last did about them, name the cause.
    const events = rig.subscriber.lines
      .filter((l) => !l.includes('"notification.received"'))
      .slice(-40);
    throw new Error(
      `${(err as Error).message}\nlast difference: ${JSON.stringify({ ...last, checked: undefined })}\nsubscriber log (last lines):\n${events.join('\n')}`,
      { cause: err },
    );
  });
  assert.ok(comparison.checked > 0);
  const audit = spawnCli(SUBSCRIBER_CLI, ['audit', 'sim', '--config', rig.configFile]);
  assert.equal(await audit.exited, 0, `audit reports in sync:\n${audit.lines.join('\n')}`);
}

export async function stopRig(rig: Rig): Promise<void> {
  await rig.subscriber.stop();
  await rig.hub.stop();
  await rig.sim.close();
  rmSync(rig.dir, { recursive: true, force: true });
}
