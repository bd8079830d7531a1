// Helpers for the subscriber end-to-end tests: a temp workspace, a subscriber config for one
// simulated Source, and the byte-for-byte comparison of a mirror with the simulator's snapshot().
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uriToMirrorPath, isTempFileName, type SourceStatus, type SubscriberConfig } from '@rsnotify/subscriber';
import { compareDateTime, parseDateTime } from '@rsnotify/shared';
import { startHub } from '@rsnotify/hub';

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

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await listFiles(p)));
    else if (!isTempFileName(e.name)) out.push(p);
  }
  return out;
}

export interface MirrorDiff {
  readonly missing: string[];
  readonly different: string[];
  readonly extra: string[];
}

/** Compares every snapshot entry byte for byte and looks for files that should not be there. */
export async function diffMirror(mirrorDir: string, snapshot: ReadonlyMap<string, { bytes: Buffer }>): Promise<MirrorDiff> {
  const missing: string[] = [];
  const different: string[] = [];
  const expected = new Set<string>();
  for (const [uri, entry] of snapshot) {
    const path = uriToMirrorPath(mirrorDir, uri);
    expected.add(path);
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch {
      missing.push(uri);
      continue;
    }
    if (!bytes.equals(entry.bytes)) different.push(uri);
  }
  const extra = (await listFiles(mirrorDir)).filter((p) => !expected.has(p));
  return { missing, different, extra };
}

export async function mirrorEquals(mirrorDir: string, snapshot: ReadonlyMap<string, { bytes: Buffer }>): Promise<boolean> {
  const d = await diffMirror(mirrorDir, snapshot);
  return d.missing.length === 0 && d.different.length === 0 && d.extra.length === 0;
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
