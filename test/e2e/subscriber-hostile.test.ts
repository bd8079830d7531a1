// End to end with the real hub: bytes that do not match their announced hash are never kept (the
// position waits until the Source serves the right bytes), and URIs built to escape the mirror are
// refused while odd but legal names still land in distinct files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { access, readdir } from 'node:fs/promises';
import { compareDateTime, parseDateTime } from '@rsnotify/shared';
import { uriToMirrorPath } from '@rsnotify/subscriber';
import { waitFor } from '../src/harness/index.js';
import {
  diffMirror,
  isSyncedTo,
  type LiveRig,
  mirrorEquals,
  startLiveRig,
  syncState,
} from './subscriber-helpers.js';

type Rig = LiveRig;

const rig = (t: { after: (fn: () => Promise<void>) => void }): Promise<Rig> =>
  startLiveRig(t, { prefix: 'rsn-hostile-', seed: 23, initialResources: 10 });

test('RN-11/RC-26: a hash mismatch is an error with a code, never kept, and the position waits until the bytes are right', async (t) => {
  const r = await rig(t);
  await r.sim.changeBatch(2);
  await r.sim.flush();
  await waitFor(async () => isSyncedTo((await r.sub.status())[0], r.sim.lastUntil()), {
    what: 'first batch applied',
    describe: syncState(() => r.sub.status(), r.sim),
  });
  const synced = (await r.sub.status())[0]!.syncedUntil!;
  r.sim.faults.corruptNext = 1;
  await r.sim.makeChanges([
    { change: 'created', path: 'corrupt/one.txt', bytes: 'the announced bytes' },
  ]);
  await r.sim.flush();
  const [corrupt] = r.sim.corruptedUris();
  assert.ok(corrupt, 'the simulator corrupted a resource');
  await waitFor(
    async () => /RSN_(HASH|LENGTH)_MISMATCH/.test((await r.sub.status())[0]?.lastError ?? ''),
    { what: 'mismatch reported' },
  );
  const during = (await r.sub.status())[0]!;
  assert.ok(during.errors > 0);
  // Promise 3: the interval with the bad resource is not passed.
  assert.equal(compareDateTime(parseDateTime(during.syncedUntil!), parseDateTime(synced)), 0);
  // Never kept: no file for the corrupted resource (it was created with the bad bytes).
  await assert.rejects(access(uriToMirrorPath(r.ws.mirrorDir, corrupt!)), { code: 'ENOENT' });
  r.sim.healCorruption();
  await waitFor(
    async () =>
      isSyncedTo((await r.sub.status())[0], r.sim.lastUntil()) &&
      (await mirrorEquals(r.ws.mirrorDir, r.sim.snapshot())),
    {
      what: 'converged after the Source serves the right bytes',
      timeoutMs: 40_000,
      describe: syncState(() => r.sub.status(), r.sim),
    },
  );
});

test('promise 4: URIs that would leave the mirror are refused; odd but legal names map to distinct files', async (t) => {
  const r = await rig(t);
  const hostile = [
    '/resources/..%2F..%2Fescape-1.txt',
    '/resources/%2e%2e/%2e%2e/%2e%2e/escape-2.txt',
    '/resources/a/..%5C..%5Cescape-3.txt',
  ];
  for (const rawTarget of hostile) {
    await r.sim
      .makeChanges([{ change: 'created', rawTarget, bytes: `hostile ${rawTarget}` }])
      .catch(() => undefined);
  }
  await r.sim.makeChanges([
    { change: 'created', path: 'odd/a b.txt', bytes: 'space' },
    { change: 'created', path: 'odd/a%20b.txt', bytes: 'literal percent' },
    { change: 'created', path: 'odd/データ.txt', bytes: 'non-ascii' },
    {
      change: 'created',
      path: 'odd/q',
      query: [
        ['x', '1'],
        ['y', 'a&b'],
      ],
      bytes: 'query one',
    },
    { change: 'created', path: 'odd/q', query: [['x', '2']], bytes: 'query two' },
  ]);
  await r.sim.flush();
  await waitFor(async () => isSyncedTo((await r.sub.status())[0], r.sim.lastUntil()), {
    what: 'position passed the hostile changes',
    timeoutMs: 30_000,
    describe: syncState(() => r.sub.status(), r.sim),
  });
  const snapshot = r.sim.snapshot();
  const hostileUris = [...snapshot.keys()].filter((uri) => hostile.some((h) => uri.endsWith(h)));
  const legal = new Map([...snapshot].filter(([uri]) => !hostileUris.includes(uri)));
  const d = await diffMirror(r.ws.mirrorDir, legal);
  // Hostile URIs either map inside the mirror (and are then the Source's bytes) or are refused.
  assert.deepEqual(d.missing, []);
  assert.deepEqual(d.different, []);
  for (const extra of d.extra) {
    assert.ok(extra.startsWith(r.ws.mirrorDir + '/'), extra);
    assert.ok(
      hostileUris.some((u) => {
        try {
          return uriToMirrorPath(r.ws.mirrorDir, u) === extra;
        } catch {
          return false;
        }
      }),
      `unexpected file ${extra}`,
    );
  }
  // Nothing was written next to the mirror (the workspace holds only what we put there).
  const top = (await readdir(r.ws.dir)).sort();
  assert.deepEqual(
    top.filter((n) => !['data', 'mirror', 'hub.db', 'hub.db-wal', 'hub.db-shm'].includes(n)),
    [],
  );
  // An escaped separator stays escaped inside one file name (lossless mapping): never a step up.
  const refused: string[] = [];
  for (const u of hostileUris) {
    let p: string;
    try {
      p = uriToMirrorPath(r.ws.mirrorDir, u);
    } catch {
      refused.push(u);
      continue;
    }
    assert.ok(p.startsWith(r.ws.mirrorDir + '/') && !p.split('/').includes('..'), p);
  }
  assert.ok((await r.sub.status())[0]!.errors >= refused.length, 'refusals are reported');
  // The five odd names are five files.
  const odd = [...legal.keys()]
    .filter((u) => u.includes('/odd/'))
    .map((u) => uriToMirrorPath(r.ws.mirrorDir, u));
  assert.equal(new Set(odd).size, 5);
});
