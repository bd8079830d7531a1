// The mirror applier's test rig: a fake Source speaking real HTTP on 127.0.0.1 (mirror-helpers.ts),
// a mirror over it with short retry delays, and changes with a rising datetime and the hashes of
// their bytes. Shared by the mirror-apply*.test.ts files.
import type { TestContext } from 'node:test';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { computeHashList, dateTimeFromMillis, type Change } from '@rsnotify/shared';
import {
  createHttpGetter,
  createMirror,
  type Mirror,
  type ResourceStateStore,
} from '../src/mirror/index.js';
import { memoryStateStore, startFakeSource, tempDir, type FakeSource } from './mirror-helpers.js';

export interface Setup {
  src: FakeSource;
  mirrorDir: string;
  parent: string;
  mirror: Mirror;
  state: ReturnType<typeof memoryStateStore>;
}

export async function setup(
  t: TestContext,
  opts: { maxAttempts?: number; perHostConcurrency?: number; state?: ResourceStateStore } = {},
): Promise<Setup> {
  const src = await startFakeSource();
  const tmp = await tempDir();
  const mirrorDir = join(tmp.dir, 'mirror');
  await mkdir(mirrorDir);
  const http = createHttpGetter({
    allowPrivateNetworks: true,
    perHostConcurrency: opts.perHostConcurrency ?? 8,
  });
  const state = memoryStateStore();
  const mirror = createMirror({
    mirrorDir,
    http,
    state: opts.state ?? state,
    maxAttempts: opts.maxAttempts ?? 3,
    perHostConcurrency: opts.perHostConcurrency ?? 8,
    retryBaseDelayMs: 10,
    retryMaxDelayMs: 50,
  });
  t.after(async () => {
    await mirror.close();
    await http.close();
    await src.close();
    await tmp.remove();
  });
  return { src, mirrorDir, parent: tmp.dir, mirror, state };
}

let clock = Date.parse('2026-01-01T00:00:00Z');
export const at = (): ReturnType<typeof dateTimeFromMillis> => dateTimeFromMillis((clock += 1000));
/** The datetime (ms) of the change made last. */
export const lastChangeMs = (): number => clock;

export function change(
  uri: string,
  kind: Change['change'],
  body?: string,
  extra: Partial<Change> = {},
): Change {
  const bytes = body === undefined ? undefined : Buffer.from(body);
  return {
    uri,
    change: kind,
    time: at(),
    ...(bytes ? { hash: computeHashList(bytes, ['md5', 'sha-256']), length: bytes.length } : {}),
    ...extra,
  };
}

export async function listAll(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) out.push(join(e.parentPath, e.name));
  return out;
}
