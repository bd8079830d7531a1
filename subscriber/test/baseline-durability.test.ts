// The baseline's batched durability (subscriber/src/mirror/sync-group.ts) through the real code
// path: runBaseline -> mirror -> real files and the daemon's real SQLite store, over real HTTP. The
// faults are injected through the mirror's fsync dependency: a held fsync shows that no state row
// of a batch is committed before its files are synced, a failing one that an unsynced file is never
// recorded, and a second run re-fetches what was not recorded.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { runBaseline } from '../src/baseline/index.js';
import {
  createHttpGetter,
  createMirror,
  isTempFileName,
  uriToMirrorPath,
  type HttpGetter,
  type Mirror,
} from '../src/mirror/index.js';
import type { SyncFileSystem } from '../src/mirror/sync-group.js';
import { nodeSyncFileSystem } from '../src/mirror/sync-group.js';
import { createResourceStateStore, openSqliteStore } from '../src/store/index.js';
import {
  resourceList,
  startFakeSource,
  tempDir,
  waitFor,
  type FakeSource,
} from './mirror-helpers.js';

const AT = '2026-03-01T00:00:00Z';
const COUNT = 24;

interface Rig {
  src: FakeSource;
  mirrorDir: string;
  listUrl: string;
  bodies: Map<string, string>;
  http: HttpGetter;
  /** URIs with a state row in the SQLite store. */
  recorded(): Promise<string[]>;
  /** A mirror over the store whose fsyncs go through `fs`. */
  mirror(fs: SyncFileSystem): Mirror;
}

async function rig(t: TestContext): Promise<Rig> {
  const src = await startFakeSource();
  const tmp = await tempDir();
  const store = openSqliteStore({ file: join(tmp.dir, 'state', 'subscriber.db') });
  const source = await store.ensureSource('s', `${src.baseUrl}/`);
  const http = createHttpGetter({ allowPrivateNetworks: true });
  const mirrors: Mirror[] = [];
  t.after(async () => {
    for (const m of mirrors) await m.close();
    await http.close();
    await store.close();
    await src.close();
    await tmp.remove();
  });
  const items = Array.from({ length: COUNT }, (_, i) => ({
    path: `/r/${i}`,
    body: `resource ${i};`.repeat(i + 1),
  }));
  const bodies = new Map<string, string>();
  for (const i of items) {
    src.serve(i.path, i.body);
    bodies.set(`${src.baseUrl}${i.path}`, i.body);
  }
  src.serve('/resourcelist.xml', resourceList(src.baseUrl, AT, items), {
    'content-type': 'application/xml',
  });
  const mirrorDir = join(tmp.dir, 'mirror');
  return {
    src,
    mirrorDir,
    listUrl: `${src.baseUrl}/resourcelist.xml`,
    bodies,
    http,
    recorded: () => store.listResourceUris(source.id),
    mirror(fs) {
      const m = createMirror({
        mirrorDir,
        http,
        state: createResourceStateStore(store, source.id),
        fileSystem: fs,
        maxAttempts: 1,
      });
      mirrors.push(m);
      return m;
    },
  };
}

async function tempFilesIn(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile() && isTempFileName(e.name)).map((e) => e.name);
}

test('M-7: no state row of a baseline batch is committed before its files are fsync-ed; then all are', async (t) => {
  const r = await rig(t);
  const calls: string[] = [];
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const held: SyncFileSystem = {
    async fsync(fd, path) {
      calls.push(path);
      await gate;
      await nodeSyncFileSystem.fsync(fd, path);
    },
  };
  const running = runBaseline(r.listUrl, r.http, r.mirror(held));
  await waitFor(() => calls.length >= COUNT, 10_000, 'every file of the batch handed to fsync');
  // Every file is written and waiting for its fsync: nothing may be recorded or in place yet.
  assert.deepEqual(await r.recorded(), []);
  for (const uri of r.bodies.keys())
    assert.equal(existsSync(uriToMirrorPath(r.mirrorDir, uri)), false, `${uri} not in place yet`);
  open();
  const result = await running;
  assert.equal(result.written, COUNT);
  assert.deepEqual((await r.recorded()).sort(), [...r.bodies.keys()].sort());
  for (const [uri, body] of r.bodies)
    assert.equal(await readFile(uriToMirrorPath(r.mirrorDir, uri), 'utf8'), body);
  // The files first, then the directories they were renamed into. (How the files split into
  // batches depends on how the fetches interleave, so a directory may be synced once per batch.)
  const fileCalls = calls.slice(0, COUNT);
  assert.ok(fileCalls.every((p) => isTempFileName(p.slice(p.lastIndexOf('/') + 1))));
  const dirCalls = new Set(calls.slice(COUNT));
  for (const d of dirCalls) assert.ok((await stat(d)).isDirectory(), d);
  for (const uri of r.bodies.keys()) {
    const dir = dirname(uriToMirrorPath(r.mirrorDir, uri));
    assert.ok(dirCalls.has(dir), `${dir}, where ${uri} was renamed into, is synced`);
  }
});

test('M-7: a file whose fsync fails is never recorded nor put in place; a second baseline re-fetches it', async (t) => {
  const r = await rig(t);
  const victim = [...r.bodies.keys()][7]!;
  const victimBody = r.bodies.get(victim)!;
  // The disk fails the fsync of the temporary file holding the victim's bytes.
  const failing: SyncFileSystem = {
    async fsync(fd, path) {
      const isFile = (await stat(path)).isFile();
      if (isFile && (await readFile(path, 'utf8')) === victimBody)
        throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
      await nodeSyncFileSystem.fsync(fd, path);
    },
  };
  const first = await runBaseline(r.listUrl, r.http, r.mirror(failing));
  assert.deepEqual(
    first.failed.map((f) => [f.uri, f.error?.code]),
    [[victim, 'RSN_WRITE_FAILED']],
  );
  assert.equal(first.written, COUNT - 1);
  const recorded = await r.recorded();
  assert.equal(recorded.includes(victim), false, 'the unsynced file is not recorded');
  assert.equal(recorded.length, COUNT - 1, 'the synced files of the same batch are');
  assert.equal(existsSync(uriToMirrorPath(r.mirrorDir, victim)), false);
  assert.deepEqual(await tempFilesIn(r.mirrorDir), [], 'its temporary file is removed');

  const second = await runBaseline(r.listUrl, r.http, r.mirror(nodeSyncFileSystem));
  assert.equal(second.written, 1, 'only the unrecorded resource is fetched again');
  assert.deepEqual(second.failed, []);
  assert.equal(await readFile(uriToMirrorPath(r.mirrorDir, victim), 'utf8'), victimBody);
  assert.equal((await r.recorded()).length, COUNT);
});

test('M-7: when a directory cannot be synced, none of the files renamed into it is recorded', async (t) => {
  const r = await rig(t);
  const failing: SyncFileSystem = {
    async fsync(fd, path) {
      if ((await stat(path)).isDirectory())
        throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
      await nodeSyncFileSystem.fsync(fd, path);
    },
  };
  const first = await runBaseline(r.listUrl, r.http, r.mirror(failing));
  assert.equal(first.written, 0);
  assert.equal(first.failed.length, COUNT);
  assert.ok(first.failed.every((f) => f.error?.code === 'RSN_WRITE_FAILED'));
  assert.deepEqual(await r.recorded(), [], 'renamed but not durable: nothing recorded');
  const second = await runBaseline(r.listUrl, r.http, r.mirror(nodeSyncFileSystem));
  assert.equal(second.written, COUNT, 'every unrecorded file is fetched again');
  for (const [uri, body] of r.bodies)
    assert.equal(await readFile(uriToMirrorPath(r.mirrorDir, uri), 'utf8'), body);
});
