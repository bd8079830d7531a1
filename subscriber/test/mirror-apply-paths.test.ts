// The mirror applier and hostile or odd URIs (promise 4): nothing is written outside mirrorDir,
// legal but odd names land in distinct files, a file that is also a directory keeps both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isTempFileName, uriToMirrorPath } from '../src/mirror/index.js';
import { at, change, listAll, setup } from './mirror-apply-rig.js';

test('promise 4: traversal URIs served by a hostile Source never write outside mirrorDir', async (t) => {
  const s = await setup(t);
  const hostile = [
    '/../escape',
    '/%2e%2e/%2e%2e/escape',
    '/a%2F..%2F..%2Fescape',
    '/a%5C..%5Cescape',
    '/x%00y',
    '/..%2fescape',
    '/a\\..\\..\\escape',
  ];
  for (const p of ['/escape', '/a/escape', '/x%00y', '/a%5C..%5Cescape']) s.src.serve(p, 'owned');
  s.src.route('/a%2F..%2F..%2Fescape', (_req, res) => {
    res.writeHead(200).end('owned');
  });
  const results = await s.mirror.apply(
    hostile.map((p) => ({ uri: `${s.src.baseUrl}${p}`, change: 'created' as const, time: at() })),
  );
  for (const r of results) {
    // Refused by the mapping, or (an escaped separator is one file name now) fetched: 404 when unserved.
    if (r.outcome === 'failed')
      assert.ok(
        ['RSN_PATH_ESCAPE', 'RSN_PATH_UNMAPPABLE', 'RSN_HTTP_STATUS'].includes(r.error!.code),
        r.error!.code,
      );
    else assert.equal(r.outcome, 'written');
  }
  // Nothing but the mirror directory in its parent, and every file under the Source's host directory.
  assert.deepEqual(await readdir(s.parent), ['mirror']);
  const host = new URL(s.src.baseUrl).host.replace(':', '%3A');
  for (const f of await listAll(s.mirrorDir))
    assert.ok(f.startsWith(join(s.mirrorDir, host) + '/'), f);
});

test('promise 4: odd but legal URIs (spaces, non-ASCII, &, queries) land in distinct files with their own bytes', async (t) => {
  const s = await setup(t);
  const paths = [
    '/a%20b',
    '/caf%C3%A9',
    '/a&b',
    '/q?x=1&y=2',
    '/q?x=1%26y=2',
    '/q',
    '/dir/',
    '/%E6%97%A5%E6%9C%AC',
    '/a%26b',
  ];
  for (const p of paths) s.src.serve(p, `body of ${p}`);
  const results = await s.mirror.apply(
    paths.map((p) => change(`${s.src.baseUrl}${p}`, 'created', `body of ${p}`)),
  );
  assert.deepEqual(
    results.map((r) => `${r.outcome} ${r.error?.code ?? ''}`),
    paths.map(() => 'written '),
  );
  const files = new Set(results.map((r) => r.path));
  assert.equal(files.size, paths.length, 'distinct files');
  for (const p of paths)
    assert.equal(
      await readFile(uriToMirrorPath(s.mirrorDir, `${s.src.baseUrl}${p}`), 'utf8'),
      `body of ${p}`,
    );
});

test('a file that is also a directory (/node next to /node/child) moves inside it as %%self; both stay', async (t) => {
  const s = await setup(t);
  s.src.serve('/node', 'leaf');
  s.src.serve('/node/child', 'child');
  s.src.serve('/other/x', 'x');
  s.src.serve('/other', 'other');
  await s.mirror.apply([change(`${s.src.baseUrl}/node`, 'created', 'leaf')]);
  const [r] = await s.mirror.apply([change(`${s.src.baseUrl}/node/child`, 'created', 'child')]);
  assert.equal(r!.outcome, 'written', r!.error?.message);
  const node = uriToMirrorPath(s.mirrorDir, `${s.src.baseUrl}/node`);
  assert.equal(await readFile(join(node, '%%self'), 'utf8'), 'leaf');
  assert.equal(await readFile(join(node, 'child'), 'utf8'), 'child');
  // The other order: the directory exists first, the file goes straight inside it.
  await s.mirror.apply([change(`${s.src.baseUrl}/other/x`, 'created', 'x')]);
  const [o] = await s.mirror.apply([change(`${s.src.baseUrl}/other`, 'created', 'other')]);
  assert.equal(o!.outcome, 'written');
  assert.equal(
    o!.path,
    join(uriToMirrorPath(s.mirrorDir, `${s.src.baseUrl}/other`), '%%self'),
    'hooks see the real file',
  );
  // An update and a delete find it there too; the members stay.
  s.src.serve('/node', 'leaf v2');
  await s.mirror.apply([change(`${s.src.baseUrl}/node`, 'updated', 'leaf v2')]);
  assert.equal(await readFile(join(node, '%%self'), 'utf8'), 'leaf v2');
  const [d] = await s.mirror.apply([change(`${s.src.baseUrl}/node`, 'deleted')]);
  assert.equal(d!.outcome, 'deleted');
  assert.equal(existsSync(join(node, '%%self')), false);
  assert.equal(await readFile(join(node, 'child'), 'utf8'), 'child');
  assert.equal(
    (await listAll(s.mirrorDir)).filter((f) => isTempFileName(f.split('/').pop()!)).length,
    0,
    'no temp files left',
  );
});

test('a delete of a member whose collection is mirrored as a plain file is done (nothing to remove), recorded or not', async (t) => {
  // /coll is a file in the mirror; /coll/gone was never written there (created and deleted before
  // it was fetched), so its path has a file as parent: unlink answers ENOTDIR, not ENOENT.
  const s = await setup(t);
  s.src.serve('/coll', 'collection');
  await s.mirror.apply([change(`${s.src.baseUrl}/coll`, 'created', 'collection')]);
  const coll = uriToMirrorPath(s.mirrorDir, `${s.src.baseUrl}/coll`);
  const [unrecorded] = await s.mirror.apply([change(`${s.src.baseUrl}/coll/gone`, 'deleted')]);
  assert.equal(unrecorded!.outcome, 'deleted', unrecorded!.error?.message);
  // With a state row (a crash left it, or an earlier layout): the row goes, the delete still holds.
  await s.state.set(`${s.src.baseUrl}/coll/other`, { path: join(coll, 'other'), sha256: 'x' });
  const [recorded] = await s.mirror.apply([change(`${s.src.baseUrl}/coll/other`, 'deleted')]);
  assert.equal(recorded!.outcome, 'deleted', recorded!.error?.message);
  assert.equal(s.state.rows.has(`${s.src.baseUrl}/coll/other`), false);
  assert.equal(await readFile(coll, 'utf8'), 'collection', 'the collection file is untouched');
});
