// Helpers for the subscriber end-to-end tests: a temp workspace, a subscriber config for one
// simulated Source, the real hub, and (from the harness) the mirror comparison.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SourceStatus, SubscriberConfig } from '@rsnotify/subscriber';
import { compareDateTime, parseDateTime } from '@rsnotify/shared';
import { startHub } from '@rsnotify/hub';

export { diffMirror, mirrorEquals, type MirrorDiff } from '../src/harness/index.js';

export interface Workspace {
  readonly dir: string;
  readonly dataDir: string;
  readonly mirrorDir: string;
  remove(): Promise<void>;
}

export async function workspace(prefix = 'rsn-e2e-'): Promise<Workspace> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, dataDir: join(dir, 'data'), mirrorDir: join(dir, 'mirror'), remove: () => rm(dir, { recursive: true, force: true }) };
}

export function subscriberConfig(ws: Workspace, sourceUrl: string, extra: Partial<SubscriberConfig['sources'] extends (infer S)[] | undefined ? S : never> = {}, top: Partial<SubscriberConfig> = {}): SubscriberConfig {
  return {
    listen: { host: '127.0.0.1', port: 0 },
    dataDir: ws.dataDir,
    allowPrivateNetworks: true,
    logLevel: process.env.RSN_E2E_LOG ? 'debug' : 'silent',
    retry: { initialDelay: 200, maxDelay: 2_000 },
    verificationTimeout: '5s',
    sources: [{ name: 'sim', url: sourceUrl, mirrorDir: ws.mirrorDir, gapTimeout: '300ms', leaseSeconds: 600, ...extra }],
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
export function isSyncedTo(status: SourceStatus | undefined, lastUntil: string | undefined): boolean {
  if (!status?.syncedUntil || !lastUntil) return false;
  return compareDateTime(parseDateTime(status.syncedUntil), parseDateTime(lastUntil)) >= 0 && status.buffered === 0;
}

// ---- the hub for end-to-end runs

export interface E2EHub {
  readonly url: string;
  readonly port: number;
  addSource(name: string, topicPrefixes: string[]): Promise<{ token: string }>;
  close(): Promise<void>;
}

/** The real hub on 127.0.0.1 with a real SQLite file, short retries and small leases allowed. */
export async function startE2EHub(options: { dbFile: string; port?: number; leaseMinSeconds?: number }): Promise<E2EHub> {
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
