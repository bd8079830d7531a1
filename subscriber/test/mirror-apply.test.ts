// The mirror applier against a fake Source speaking real HTTP on 127.0.0.1: verification, retries,
// per-URI order, parallelism, atomic writes, idempotency, safe paths.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { computeHashList, dateTimeFromMillis, parseHashList, type Change } from '@rsnotify/shared';
import {
  createHttpGetter,
  createMirror,
  isTempFileName,
  uriToMirrorPath,
  type Mirror,
  type ResourceStateStore,
} from '../src/mirror/index.js';
import {
  memoryStateStore,
  sleep,
  startFakeSource,
  tempDir,
  waitFor,
  type FakeSource,
} from './mirror-helpers.js';

interface Setup {
  src: FakeSource;
  mirrorDir: string;
  parent: string;
  mirror: Mirror;
  state: ReturnType<typeof memoryStateStore>;
}

async function setup(
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
const at = (): ReturnType<typeof dateTimeFromMillis> => dateTimeFromMillis((clock += 1000));

function change(
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

async function listAll(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) out.push(join(e.parentPath, e.name));
  return out;
}

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

test('retry: a 5xx then success is written', async (t) => {
  const s = await setup(t);
  s.src.route('/flaky', (_req, res, hit) => {
    if (hit < 3) res.writeHead(hit === 1 ? 500 : 503).end('down');
    else res.writeHead(200).end('ok now');
  });
  const [r] = await s.mirror.apply([change(`${s.src.baseUrl}/flaky`, 'updated', 'ok now')]);
  assert.equal(r!.outcome, 'written');
  assert.equal(s.src.hits('/flaky'), 3);
});

test('retry: 429 with Retry-After is waited for, then retried', async (t) => {
  const s = await setup(t);
  s.src.route('/busy', (_req, res, hit) => {
    if (hit === 1) res.writeHead(429, { 'retry-after': '1' }).end();
    else res.writeHead(200).end('served');
  });
  const [r] = await s.mirror.apply([change(`${s.src.baseUrl}/busy`, 'created', 'served')]);
  assert.equal(r!.outcome, 'written');
  assert.equal(s.src.hits('/busy'), 2);
  // The second request came after the server's Retry-After (a lower bound, not a timing benchmark).
  assert.ok(s.src.log[1]!.at - s.src.log[0]!.at >= 900);
});

test('retry: a network error (connection reset) then success is written', async (t) => {
  const s = await setup(t);
  s.src.route('/reset', (req, res, hit) => {
    if (hit === 1) req.socket.destroy();
    else res.writeHead(200).end('fine');
  });
  const [r] = await s.mirror.apply([change(`${s.src.baseUrl}/reset`, 'created', 'fine')]);
  assert.equal(r!.outcome, 'written');
});

test('a 404 on a created resource fails with RSN_HTTP_STATUS at once (not retried)', async (t) => {
  const s = await setup(t);
  const [r] = await s.mirror.apply([change(`${s.src.baseUrl}/missing`, 'created', 'x')]);
  assert.equal(r!.outcome, 'failed');
  assert.equal(r!.error?.code, 'RSN_HTTP_STATUS');
  assert.equal(r!.error?.status, 404);
  assert.equal(s.src.hits('/missing'), 1);
});

test('retry: a 5xx that never ends is reported after maxAttempts', async (t) => {
  const s = await setup(t, { maxAttempts: 3 });
  s.src.route('/down', (_req, res) => {
    res.writeHead(502).end();
  });
  const [r] = await s.mirror.apply([change(`${s.src.baseUrl}/down`, 'created', 'x')]);
  assert.equal(r!.error?.code, 'RSN_HTTP_STATUS');
  assert.equal(r!.error?.status, 502);
  assert.equal(s.src.hits('/down'), 3);
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

test('per-URI order: a later change to the same URI waits for the earlier one, even when the earlier is slow', async (t) => {
  const s = await setup(t);
  const uri = `${s.src.baseUrl}/ordered`;
  // Responses are served in arrival order: the first request slowly gets v1, the next at once v2.
  s.src.route('/ordered', async (_req, res, hit) => {
    if (hit === 1) {
      await sleep(300);
      res.writeHead(200).end('v1');
    } else res.writeHead(200).end('v2');
  });
  const c1 = change(uri, 'updated', 'v1');
  const c2 = change(uri, 'updated', 'v2');
  const [r1, r2] = await Promise.all([s.mirror.apply([c1]), s.mirror.apply([c2])]);
  assert.equal(r1![0]!.outcome, 'written');
  assert.equal(r2![0]!.outcome, 'written');
  assert.equal(
    await readFile(uriToMirrorPath(s.mirrorDir, uri), 'utf8'),
    'v2',
    'the later change wins',
  );
  assert.equal(s.state.rows.get(uri)!.lastChangeKey, c2.time!.key);
});

test('per-URI order: within one batch an earlier change is superseded by a later one queued behind it', async (t) => {
  const s = await setup(t);
  const uri = `${s.src.baseUrl}/batch`;
  s.src.serve('/batch', 'final');
  const results = await s.mirror.apply([
    change(uri, 'created', 'first'),
    change(uri, 'updated', 'second'),
    change(uri, 'updated', 'final'),
  ]);
  // The first was already fetching when the others were queued: it sees today's bytes ('final'), a
  // mismatch with its own hash, and since a later change waits it is skipped as stale, not failed.
  // The middle one is never fetched.
  assert.deepEqual(
    results.map((r) => r.outcome),
    ['skipped', 'skipped', 'written'],
  );
  assert.deepEqual(
    results.map((r) => r.skipped),
    ['superseded', 'superseded', undefined],
  );
  assert.equal(await readFile(uriToMirrorPath(s.mirrorDir, uri), 'utf8'), 'final');
  assert.equal(s.src.hits('/batch'), 2);
});

test('a stale change with no later change queued is still reported failed (never silently dropped)', async (t) => {
  const s = await setup(t, { maxAttempts: 2 });
  const uri = `${s.src.baseUrl}/stale`;
  s.src.serve('/stale', 'newer bytes');
  const [r] = await s.mirror.apply([change(uri, 'updated', 'older')]);
  assert.equal(r!.outcome, 'failed');
  assert.equal(r!.error?.code, 'RSN_LENGTH_MISMATCH');
});

test('parallel across URIs, bounded per host', async (t) => {
  const s = await setup(t, { perHostConcurrency: 4 });
  const changes: Change[] = [];
  for (let i = 0; i < 24; i++) {
    s.src.route(`/p/${i}`, async (_req, res) => {
      await sleep(40);
      res.writeHead(200).end(`body ${i}`);
    });
    changes.push(change(`${s.src.baseUrl}/p/${i}`, 'created', `body ${i}`));
  }
  const results = await s.mirror.apply(changes);
  assert.ok(results.every((r) => r.outcome === 'written'));
  assert.ok(s.src.maxInFlight > 1, `ran in parallel (max in flight ${s.src.maxInFlight})`);
  assert.ok(s.src.maxInFlight <= 4, `per-host limit kept (max in flight ${s.src.maxInFlight})`);
});

test('atomic write: while a new version streams in, readers see the old file whole, never a partial one', async (t) => {
  const s = await setup(t);
  const uri = `${s.src.baseUrl}/big`;
  const v1 = 'A'.repeat(100_000);
  const v2 = 'B'.repeat(600_000);
  s.src.serve('/big', v1);
  await s.mirror.apply([change(uri, 'created', v1)]);
  const path = uriToMirrorPath(s.mirrorDir, uri);
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  s.src.route('/big', async (_req, res) => {
    res.writeHead(200, { 'content-length': String(v2.length) });
    res.write(v2.slice(0, 400_000)); // more than the writer's buffer: part of it reaches the temp file
    await gate;
    res.end(v2.slice(400_000));
  });
  const pending = s.mirror.apply([change(uri, 'updated', v2)]);
  // Wait until the temp file exists (the write is under way), then look at the target.
  await waitFor(
    async () => (await readdir(join(path, '..'))).some(isTempFileName),
    10_000,
    'temp file',
  );
  assert.equal(await readFile(path, 'utf8'), v1, 'the target still holds the complete old version');
  release();
  assert.equal((await pending)[0]!.outcome, 'written');
  assert.equal((await stat(path)).size, v2.length);
  assert.equal(await readFile(path, 'utf8'), v2);
  assert.equal((await readdir(join(path, '..'))).filter(isTempFileName).length, 0);
});

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

test('the SSRF guard applies: without allowPrivateNetworks a loopback Source is refused, not retried', async (t) => {
  const src = await startFakeSource();
  const tmp = await tempDir();
  const http = createHttpGetter({ allowPrivateNetworks: false });
  const mirror = createMirror({
    mirrorDir: tmp.dir,
    http,
    state: memoryStateStore(),
    retryBaseDelayMs: 10,
  });
  t.after(async () => {
    await mirror.close();
    await http.close();
    await src.close();
    await tmp.remove();
  });
  src.serve('/x', 'x');
  const [r] = await mirror.apply([change(`${src.baseUrl}/x`, 'created', 'x')]);
  assert.equal(r!.outcome, 'failed');
  assert.equal(r!.error?.code, 'RSN_OUTBOUND_PRIVATE_ADDRESS');
  assert.equal(src.hits('/x'), 0);
  await writeFile(join(tmp.dir, 'keep'), ''); // the temp dir is still ours to remove
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
    clock,
  );
});
