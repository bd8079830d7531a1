// Baseline from a Resource List (Index) over real HTTP into a real mirror directory (RC-14..RC-16).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { resourceSyncXml } from '@rsnotify/service-kit/testing';
import { runBaseline } from '../src/baseline/index.js';
import {
  createHttpGetter,
  createMirror,
  uriToMirrorPath,
  type HttpGetter,
  type Mirror,
} from '../src/mirror/index.js';
import {
  memoryStateStore,
  resourceList,
  startFakeSource,
  tempDir,
  type FakeSource,
} from './mirror-helpers.js';

const AT = '2026-02-01T10:00:00.123456Z';
const xml = { 'content-type': 'application/xml' };

interface Setup {
  src: FakeSource;
  http: HttpGetter;
  mirror: Mirror;
  mirrorDir: string;
  state: ReturnType<typeof memoryStateStore>;
}

async function setup(t: TestContext): Promise<Setup> {
  const src = await startFakeSource();
  const tmp = await tempDir();
  const http = createHttpGetter({ allowPrivateNetworks: true });
  const state = memoryStateStore();
  const mirror = createMirror({
    mirrorDir: tmp.dir,
    http,
    state,
    maxAttempts: 2,
    retryBaseDelayMs: 10,
  });
  t.after(async () => {
    await mirror.close();
    await http.close();
    await src.close();
    await tmp.remove();
  });
  return { src, http, mirror, mirrorDir: tmp.dir, state };
}

test('RC-15: a baseline fetches every listed resource and positions at the list `at`', async (t) => {
  const s = await setup(t);
  const items = Array.from({ length: 300 }, (_, i) => ({
    path: `/resources/${i}`,
    body: `resource ${i} `.repeat((i % 7) + 1),
  }));
  for (const i of items) s.src.serve(i.path, i.body);
  s.src.serve('/resourcelist.xml', resourceList(s.src.baseUrl, AT, items), xml);
  const r = await runBaseline(`${s.src.baseUrl}/resourcelist.xml`, s.http, s.mirror);
  assert.equal(r.at.lexical, AT);
  assert.equal(r.resources, 300);
  assert.equal(r.written, 300);
  assert.deepEqual(r.failed, []);
  for (const i of items)
    assert.equal(
      await readFile(uriToMirrorPath(s.mirrorDir, `${s.src.baseUrl}${i.path}`), 'utf8'),
      i.body,
    );
  // The snapshot time is recorded as the change time, so older replays are skipped later.
  assert.equal(s.state.rows.get(`${s.src.baseUrl}/resources/5`)!.lastChangeKey, r.at.key);
});

test('RC-16: a Resource List Index is followed into each of its lists; the index `at` is the position', async (t) => {
  const s = await setup(t);
  const a = [
    { path: '/a/1', body: 'one' },
    { path: '/a/2', body: 'two' },
  ];
  const b = [{ path: '/b/1', body: 'three' }];
  for (const i of [...a, ...b]) s.src.serve(i.path, i.body);
  s.src.serve('/rl-a.xml', resourceList(s.src.baseUrl, '2026-02-01T10:00:01Z', a), xml);
  s.src.serve('/rl-b.xml', resourceList(s.src.baseUrl, '2026-02-01T10:00:02Z', b), xml);
  s.src.serve(
    '/rl-index.xml',
    resourceSyncXml({
      capability: 'resourcelist',
      root: 'sitemapindex',
      md: { at: AT },
      entries: [{ loc: `${s.src.baseUrl}/rl-a.xml` }, { loc: `${s.src.baseUrl}/rl-b.xml` }],
    }),
    xml,
  );
  const r = await runBaseline(`${s.src.baseUrl}/rl-index.xml`, s.http, s.mirror);
  assert.equal(r.at.lexical, AT);
  assert.equal(r.resources, 3);
  assert.equal(
    await readFile(uriToMirrorPath(s.mirrorDir, `${s.src.baseUrl}/b/1`), 'utf8'),
    'three',
  );
});

test('RC-26: a resource whose bytes do not match the list is reported in `failed` with its code, not written', async (t) => {
  const s = await setup(t);
  const items = [
    { path: '/ok', body: 'fine' },
    { path: '/bad', body: 'real', hash: 'md5:00000000000000000000000000000000' },
  ];
  for (const i of items) s.src.serve(i.path, i.body);
  s.src.serve('/rl.xml', resourceList(s.src.baseUrl, AT, items), xml);
  const r = await runBaseline(`${s.src.baseUrl}/rl.xml`, s.http, s.mirror);
  assert.equal(r.written, 1);
  assert.equal(r.failed.length, 1);
  assert.equal(r.failed[0]!.uri, `${s.src.baseUrl}/bad`);
  assert.equal(r.failed[0]!.error?.code, 'RSN_HASH_MISMATCH');
  assert.equal(existsSync(uriToMirrorPath(s.mirrorDir, `${s.src.baseUrl}/bad`)), false);
});

test('M-7: a re-baseline deletes what the mirror held but the list no longer has', async (t) => {
  const s = await setup(t);
  const stalePath = uriToMirrorPath(s.mirrorDir, `${s.src.baseUrl}/deleted-meanwhile`);
  await mkdir(dirname(stalePath), { recursive: true });
  await writeFile(stalePath, 'old');
  s.state.rows.set(`${s.src.baseUrl}/deleted-meanwhile`, {
    path: stalePath,
    lastChangeKey: '2026-01-01T00:00:00.',
  });
  s.src.serve('/kept', 'kept');
  s.src.serve('/rl.xml', resourceList(s.src.baseUrl, AT, [{ path: '/kept', body: 'kept' }]), xml);
  const r = await runBaseline(`${s.src.baseUrl}/rl.xml`, s.http, s.mirror, {
    previousUris: () => s.state.rows.keys(),
  });
  assert.equal(r.deleted, 1);
  assert.equal(existsSync(stalePath), false);
  assert.equal(s.state.rows.has(`${s.src.baseUrl}/deleted-meanwhile`), false);
});

test('RC-14: a list without `at` is refused (no position can be taken from it); a non-list too', async (t) => {
  const s = await setup(t);
  s.src.serve('/no-at.xml', resourceList(s.src.baseUrl, AT, []).replace(` at="${AT}"`, ''), xml);
  await assert.rejects(runBaseline(`${s.src.baseUrl}/no-at.xml`, s.http, s.mirror), {
    code: 'RSN_BASELINE_NO_AT',
  });
  s.src.serve('/cl.xml', resourceSyncXml({ capability: 'changelist', md: { from: AT } }), xml);
  await assert.rejects(runBaseline(`${s.src.baseUrl}/cl.xml`, s.http, s.mirror), {
    code: 'RSN_BASELINE_NOT_RESOURCELIST',
  });
});

test('simulator capture: the spec-1.1 Resource List gives the position and every URI', async (t) => {
  const s = await setup(t);
  const body = await readFile(
    new URL(
      '../../test/fixtures/resourcesync/simulator-captures/sim-v1.1_resourcelist.xml',
      import.meta.url,
    ),
    'utf8',
  );
  // Serve the capture with its URIs pointing at our fake Source, and each resource with its listed length.
  const local = body.replaceAll('http://127.0.0.1:8888', s.src.baseUrl);
  s.src.serve('/resourcelist.xml', local, xml);
  const uris = [...local.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]!);
  for (const u of uris)
    s.src.route(new URL(u).pathname, (_req, res) => {
      res.writeHead(503).end();
    });
  const r = await runBaseline(`${s.src.baseUrl}/resourcelist.xml`, s.http, s.mirror);
  assert.equal(r.at.lexical, '2026-11-22T02:53:30.922610Z');
  assert.equal(r.resources, uris.length);
  // The fake Source is down for the resources: every one is reported, none silently passed.
  assert.equal(r.failed.length, uris.length);
  assert.ok(r.failed.every((f) => f.error?.code === 'RSN_HTTP_STATUS' && f.error.status === 503));
});
