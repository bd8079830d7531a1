// Helpers for the subscriber end-to-end tests: a temp workspace, a subscriber config for one
// simulated Source, the real hub, and (from the harness) the mirror comparison.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startSubscriber,
  type RunningSubscriber,
  type SourceStatus,
  type SubscriberConfig,
} from '@rsnotify/subscriber';
import { compareDateTime, parseDateTime } from '@rsnotify/shared';
import { startHub } from '@rsnotify/hub';
import { startSourceSimulator, type SourceSimulator } from '../src/source-simulator/index.js';
import { spawnCli, waitFor } from '../src/harness/index.js';
import type { LogEvent } from './subscriber-log-capture.js';

export { diffMirror, mirrorEquals, type MirrorDiff } from '../src/harness/index.js';

export interface Workspace {
  readonly dir: string;
  readonly dataDir: string;
  readonly mirrorDir: string;
  remove(): Promise<void>;
}

export async function workspace(prefix = 'rsn-e2e-'): Promise<Workspace> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return {
    dir,
    dataDir: join(dir, 'data'),
    mirrorDir: join(dir, 'mirror'),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

export function subscriberConfig(
  ws: Workspace,
  sourceUrl: string,
  extra: Partial<SubscriberConfig['sources'] extends (infer S)[] | undefined ? S : never> = {},
  top: Partial<SubscriberConfig> = {},
): SubscriberConfig {
  return {
    listen: { host: '127.0.0.1', port: 0 },
    dataDir: ws.dataDir,
    allowPrivateNetworks: true,
    logLevel: process.env.RSN_E2E_LOG ? 'debug' : 'silent',
    retry: { initialDelay: 200, maxDelay: 2_000 },
    verificationTimeout: '5s',
    sources: [
      {
        name: 'sim',
        url: sourceUrl,
        mirrorDir: ws.mirrorDir,
        gapTimeout: '300ms',
        leaseSeconds: 600,
        ...extra,
      },
    ],
    ...top,
  };
}

export async function writeConfigFile(ws: Workspace, cfg: SubscriberConfig): Promise<string> {
  const file = join(ws.dir, 'subscriber.json');
  await writeFile(file, JSON.stringify(cfg, null, 2));
  return file;
}

/**
 * The subscriber's position has reached the Source's last `until` with nothing waiting. A catch-up
 * may legitimately carry the position past the last notification (to what the lists cover).
 */
export function isSyncedTo(
  status: SourceStatus | undefined,
  lastUntil: string | undefined,
): boolean {
  if (!status?.syncedUntil || !lastUntil) return false;
  return (
    compareDateTime(parseDateTime(status.syncedUntil), parseDateTime(lastUntil)) >= 0 &&
    status.buffered === 0
  );
}

/**
 * For waitFor's `describe`: what a wait on isSyncedTo saw at its timeout (the Source's last
 * `until` and the subscriber's status), so that a CI failure shows which side stopped.
 */
export function syncState(
  status: () => Promise<readonly SourceStatus[]>,
  sim: Pick<SourceSimulator, 'lastUntil'>,
): () => Promise<{ lastUntil: string | undefined; status: SourceStatus | undefined }> {
  return async () => ({ lastUntil: sim.lastUntil(), status: (await status())[0] });
}

// ---- the hub for end-to-end runs

export interface E2EHub {
  readonly url: string;
  readonly port: number;
  addSource(name: string, topicPrefixes: string[]): Promise<{ token: string }>;
  close(): Promise<void>;
}

/** The real hub on 127.0.0.1 with a real SQLite file, short retries and small leases allowed. */
export async function startE2EHub(options: {
  dbFile: string;
  port?: number;
  leaseMinSeconds?: number;
}): Promise<E2EHub> {
  return startHub({
    host: '127.0.0.1',
    port: options.port ?? 0,
    dbFile: options.dbFile,
    allowPrivateNetworks: true,
    leaseMinSeconds: options.leaseMinSeconds ?? 1,
    leaseDefaultSeconds: 600,
    retry: { initialDelayMs: 100, maxDelayMs: 1_000, maxAgeMs: 120_000 },
    logLevel: process.env.RSN_E2E_LOG ? 'debug' : 'silent',
  });
}

// ---- the whole live chain: real hub, simulated Source, subscriber daemon

export interface LiveRig {
  readonly ws: Workspace;
  readonly hub: E2EHub;
  readonly sim: SourceSimulator;
  readonly sub: RunningSubscriber;
  readonly mirrorDir: string;
}

type SourceExtra = Parameters<typeof subscriberConfig>[2];

/**
 * The real hub and the subscriber on loopback, with the simulated Source registered at the hub;
 * returns once the subscription is active and the baseline has set a position. Torn down after `t`.
 */
export async function startLiveRig(
  t: { after: (fn: () => Promise<void>) => void },
  options: {
    prefix: string;
    seed: number;
    initialResources: number;
    source?: SourceExtra;
    /** RN-13: the Source's largest notification, in entries (the simulator's default is 100). */
    maxEntriesPerNotification?: number;
  },
): Promise<LiveRig> {
  const ws = await workspace(options.prefix);
  const hub = await startE2EHub({ dbFile: join(ws.dir, 'hub.db') });
  const sim = await startSourceSimulator({
    seed: options.seed,
    initialResources: options.initialResources,
    ...(options.maxEntriesPerNotification !== undefined
      ? { maxEntriesPerNotification: options.maxEntriesPerNotification }
      : {}),
  });
  const { token } = await hub.addSource('sim', [sim.topicPrefix]);
  sim.setHub(hub.url, token);
  const sub = await startSubscriber(subscriberConfig(ws, sim.wellKnownUrl, options.source));
  t.after(async () => {
    await sub.close();
    await sim.close();
    await hub.close();
    await ws.remove();
  });
  await waitFor(
    async () => {
      const s = (await sub.status())[0];
      return s?.subscriptionState === 'active' && s.syncedUntil;
    },
    { what: 'subscribed and baselined' },
  );
  return { ws, hub, sim, sub, mirrorDir: ws.mirrorDir };
}

/**
 * Runs the subscriber CLI to its end: exit code, all output, the last line that is not a log line,
 * and the log lines parsed (one event a line).
 */
export async function runSubscriberCli(args: string[]): Promise<{
  code: number | null;
  out: string;
  last: string;
  events: LogEvent[];
}> {
  const p = spawnCli('subscriber/src/cli.ts', args);
  const code = await p.exited;
  const stdout = p.lines.filter((l) => !l.startsWith('{'));
  const events = p.lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as LogEvent);
  return { code, out: p.lines.join('\n'), last: stdout[stdout.length - 1] ?? '', events };
}

/** A simulator with `faults` and a subscriber config for it, nothing run yet. */
export async function sourceRig(
  t: { after(fn: () => Promise<void> | void): void },
  seed: number,
  faults: Partial<SourceSimulator['faults']>,
  options: { initialResources?: number; logLevel?: SubscriberConfig['logLevel'] } = {},
): Promise<{ sim: SourceSimulator; ws: Workspace; file: string }> {
  const ws = await workspace('rsn-fidelity-');
  t.after(() => ws.remove());
  const sim = await startSourceSimulator({
    seed,
    initialResources: options.initialResources ?? 20,
    faults,
  });
  t.after(() => sim.close());
  const file = await writeConfigFile(
    ws,
    subscriberConfig(ws, sim.wellKnownUrl, {}, { logLevel: options.logLevel ?? 'warn' }),
  );
  return { sim, ws, file };
}

/** A simulator with `faults` and a config whose first `sync` (the baseline) succeeded. */
export async function syncedRig(
  t: { after(fn: () => Promise<void> | void): void },
  seed: number,
  faults: Partial<SourceSimulator['faults']>,
): Promise<{ sim: SourceSimulator; ws: Workspace; file: string }> {
  const rig = await sourceRig(t, seed, faults);
  const first = await runSubscriberCli(['sync', 'sim', '--config', rig.file]);
  assert.equal(first.code, 0, first.out);
  return rig;
}
