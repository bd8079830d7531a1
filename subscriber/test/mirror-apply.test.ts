// The mirror applier against a fake Source speaking real HTTP on 127.0.0.1: verification (RC-26,
// RC-27), deletes, idempotency (RA-2), the onApplied callback and file times. Retries are in
// mirror-apply-retry, order and parallelism in mirror-apply-order, safe paths in mirror-apply-paths.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { existsSync } from 'node:fs';
import { computeHashList, dateTimeFromMillis, parseHashList } from '@rsnotify/shared';
import {
  createHttpGetter,
  createMirror,
  isTempFileName,
  uriToMirrorPath,
} from '../src/mirror/index.js';
import { at, change, listAll, setup, lastChangeMs } from './mirror-apply-rig.js';
import { memoryStateStore, startFakeSource, tempDir } from './mirror-helpers.js';

test('created/updated: fetched, length and hashes verified, written under the host directory', async (t) => {
  const s = await setup(t);
  s.src.serve('/res/1', 'hello');
  const uri = `${s.src.baseUrl}/res/1`;
  const [r] = await s.mirror.apply([change(uri, 'created', 'hello')]);
  assert.equal(r!.outcome, 'written');
  assert.equal(await readFile(uriToMirrorPath(s.mirrorDir, uri), 'utf8'), 'hello');
  const row = s.state.rows.get(uri)!;
  assert.equal(row.length, 5);
  assert.equal(row.sha256, computeHashList(Buffer.from('hello'), ['sha-256'])[0]!.hex);
});

test('RC-26: a hash mismatch is reported as RSN_HASH_MISMATCH after one fetch, and nothing is kept', async (t) => {
  const s = await setup(t, { maxAttempts: 3 });
  s.src.serve('/bad', 'tampered');
  const uri = `${s.src.baseUrl}/bad`;
  const c = change(uri, 'created', 'original', { length: 8 }); // same length, other bytes
  const [r] = await s.mirror.apply([c]);
  assert.equal(r!.outcome, 'failed');
  assert.equal(r!.error?.code, 'RSN_HASH_MISMATCH');
  assert.equal(
    s.src.hits('/bad'),
    1,
    'not fetched again: the runner decides (superseded, or its own backoff)',
  );
  assert.equal(
    existsSync(uriToMirrorPath(s.mirrorDir, uri)),
    false,
    'the unverified file is not kept',
  );
  assert.deepEqual(
    (await listAll(s.mirrorDir)).filter((f) => isTempFileName(f.split('/').pop()!)),
    [],
    'no temp file left',
  );
  assert.equal(s.state.rows.has(uri), false);
});

test('RC-26: a mismatch keeps the previous good file untouched', async (t) => {
  const s = await setup(t, { maxAttempts: 2 });
  const uri = `${s.src.baseUrl}/doc`;
  s.src.serve('/doc', 'v1');
  assert.equal((await s.mirror.apply([change(uri, 'created', 'v1')]))[0]!.outcome, 'written');
  s.src.serve('/doc', 'v2-corrupt');
  const [r] = await s.mirror.apply([change(uri, 'updated', 'v2')]);
  assert.equal(r!.error?.code, 'RSN_LENGTH_MISMATCH');
  assert.equal(await readFile(uriToMirrorPath(s.mirrorDir, uri), 'utf8'), 'v1');
});

test('RC-27: a length mismatch is RSN_LENGTH_MISMATCH even without a hash', async (t) => {
  const s = await setup(t, { maxAttempts: 2 });
  s.src.serve('/len', 'abc');
  const [r] = await s.mirror.apply([
    { uri: `${s.src.baseUrl}/len`, change: 'created', time: at(), length: 4 },
  ]);
  assert.equal(r!.error?.code, 'RSN_LENGTH_MISMATCH');
  assert.equal(s.src.hits('/len'), 1, 'one fetch: the runner owns the retry');
});

test('RC-26: unknown or unparsable hash tokens are ignored, not a mismatch', async (t) => {
  const s = await setup(t);
  s.src.serve('/odd-hash', 'data');
  const [r] = await s.mirror.apply([
    {
      uri: `${s.src.baseUrl}/odd-hash`,
      change: 'created',
      time: at(),
      hash: parseHashList('sha-256:f4OxZX_x_placeholder whirlpool:abc'),
    },
  ]);
  assert.equal(r!.outcome, 'written');
});
test('deleted: removes the file; deleting a missing file is fine (idempotent)', async (t) => {
  const s = await setup(t);
  const uri = `${s.src.baseUrl}/gone`;
  s.src.serve('/gone', 'bye');
  await s.mirror.apply([change(uri, 'created', 'bye')]);
  const path = uriToMirrorPath(s.mirrorDir, uri);
  assert.ok(existsSync(path));
  assert.equal((await s.mirror.apply([change(uri, 'deleted')]))[0]!.outcome, 'deleted');
  assert.equal(existsSync(path), false);
  assert.equal(s.state.rows.has(uri), false);
  assert.equal(
    (await s.mirror.apply([change(`${s.src.baseUrl}/never-there`, 'deleted')]))[0]!.outcome,
    'deleted',
  );
});

test('deleted: a file the resource state has no row for is still removed (a crash lost the row)', async (t) => {
  const s = await setup(t);
  // As a crash between the rename and the state write leaves them: files on disk, no rows.
  const uri = `${s.src.baseUrl}/unrecorded`;
  const path = uriToMirrorPath(s.mirrorDir, uri);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, 'left behind');
  const dirUri = `${s.src.baseUrl}/dir`;
  const self = join(uriToMirrorPath(s.mirrorDir, dirUri), '%%self');
  await mkdir(dirname(self), { recursive: true });
  await writeFile(self, 'a file that is also a directory');
  const results = await s.mirror.apply([change(uri, 'deleted'), change(dirUri, 'deleted')]);
  assert.deepEqual(
    results.map((r) => r.outcome),
    ['deleted', 'deleted'],
  );
  assert.equal(existsSync(path), false);
  assert.equal(existsSync(self), false);
});

test('RA-2: replaying an applied change does nothing; a change without time is always applied', async (t) => {
  const s = await setup(t);
  const uri = `${s.src.baseUrl}/idem`;
  s.src.serve('/idem', 'same');
  const c = change(uri, 'created', 'same');
  assert.equal((await s.mirror.apply([c]))[0]!.outcome, 'written');
  const again = (await s.mirror.apply([c]))[0]!;
  assert.equal(again.outcome, 'skipped');
  assert.equal(again.skipped, 'replay');
  assert.equal(s.src.hits('/idem'), 1, 'no second fetch');
  const { time: _t, ...timeless } = c;
  assert.equal((await s.mirror.apply([timeless]))[0]!.outcome, 'written');
  assert.equal(s.src.hits('/idem'), 2);
});
test('onApplied is called once per change with its result', async (t) => {
  const src = await startFakeSource();
  const tmp = await tempDir();
  const http = createHttpGetter({ allowPrivateNetworks: true });
  const seen: string[] = [];
  const mirror = createMirror({
    mirrorDir: tmp.dir,
    http,
    state: memoryStateStore(),
    onApplied: (r) => seen.push(`${r.change}:${r.outcome}`),
  });
  t.after(async () => {
    await mirror.close();
    await http.close();
    await src.close();
    await tmp.remove();
  });
  src.serve('/o', 'o');
  await mirror.apply([
    change(`${src.baseUrl}/o`, 'created', 'o'),
    change(`${src.baseUrl}/p`, 'deleted'),
  ]);
  assert.deepEqual(seen.sort(), ['created:written', 'deleted:deleted']);
});
test('a written file keeps the entry lastmod as its mtime (else the change datetime), like rsync -t', async (t) => {
  const s = await setup(t);
  s.src.serve('/res/stamped', 'a');
  s.src.serve('/res/timed', 'b');
  const lastmod = dateTimeFromMillis(Date.parse('2012-06-13T17:13:47Z'));
  const [a, b] = await s.mirror.apply([
    change(`${s.src.baseUrl}/res/stamped`, 'created', 'a', { lastmod }),
    change(`${s.src.baseUrl}/res/timed`, 'created', 'b'),
  ]);
  assert.equal(a!.outcome, 'written');
  assert.equal(b!.outcome, 'written');
  assert.equal(
    (await stat(uriToMirrorPath(s.mirrorDir, `${s.src.baseUrl}/res/stamped`))).mtimeMs,
    lastmod.epochMs,
  );
  assert.equal(
    (await stat(uriToMirrorPath(s.mirrorDir, `${s.src.baseUrl}/res/timed`))).mtimeMs,
    lastChangeMs(),
  );
});
