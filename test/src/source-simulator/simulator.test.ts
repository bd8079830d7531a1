// The simulator's documents, read back over real HTTP with @rsnotify/shared's parsers, must be a
// consistent ResourceSync Source: links right, hashes and lengths true to the bytes, the Resource
// List equal to snapshot(), the topic answering as a topic.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  extractEmbeddedLinks,
  extractRobotsSitemaps,
  firstLinkWithRel,
  notificationChannels,
  parseChangeNotification,
  parseLinkHeader,
  verifyBytes,
  type CapabilityList,
} from '@rsnotify/shared';
import { get, getDoc, link, setup, walkChangeLists } from './sim-test-helpers.js';
import { startSourceSimulator } from './index.js';
import { request } from 'undici';

test('RC-7, RC-10, RC-11, RA-1: Source Description -> Capability List with Resource List, Change List and the channel', async (t) => {
  const { sim, hub } = await setup(t);
  const sd = await getDoc(sim.wellKnownUrl);
  assert.equal(sd.kind, 'source-description');
  assert.deepEqual(
    sd.entries.map((e) => [e.loc, e.md?.capability]),
    [[sim.capabilityListUrl, 'capabilitylist']],
  );
  const cl = await getDoc(sim.capabilityListUrl);
  assert.equal(cl.kind, 'capability-list');
  assert.equal(
    link(cl, 'up'),
    sim.wellKnownUrl,
    'RC-11: Capability List rel="up" -> Source Description',
  );
  assert.deepEqual(
    cl.entries.map((e) => e.md?.capability),
    ['resourcelist', 'changelist', 'change-notification'],
  );
  assert.deepEqual(notificationChannels(cl as CapabilityList), [
    { topic: sim.topicUrl, hubs: [hub.url] },
  ]);
  assert.ok(sim.topicUrl.startsWith(sim.topicPrefix) && sim.topicPrefix === `${sim.baseUrl}/`);
});

test("RC-8, RC-9: the HTML link, a resource's Link header and robots.txt all lead back to the Source Description", async (t) => {
  const { sim } = await setup(t);
  const home = await get(`${sim.baseUrl}/`);
  assert.equal(
    firstLinkWithRel(
      extractEmbeddedLinks(home.body.toString('utf8'), `${sim.baseUrl}/`),
      'resourcesync',
    ),
    sim.capabilityListUrl,
  );
  assert.equal(
    firstLinkWithRel(parseLinkHeader(home.headers.link as string), 'resourcesync'),
    sim.capabilityListUrl,
  );
  const [someUri] = sim.snapshot().keys();
  const res = await get(someUri!);
  assert.equal(
    firstLinkWithRel(parseLinkHeader(res.headers.link as string, someUri), 'resourcesync'),
    sim.capabilityListUrl,
  );
  const robots = await get(`${sim.baseUrl}/robots.txt`);
  const [sitemap] = extractRobotsSitemaps(
    robots.body.toString('utf8'),
    `${sim.baseUrl}/robots.txt`,
  );
  assert.equal(sitemap, sim.resourceListUrl);
  const rl = await getDoc(sitemap!);
  const cl = await getDoc(link(rl, 'up')!);
  assert.equal(
    link(cl, 'up'),
    sim.wellKnownUrl,
    'RC-9: Resource List -up-> Capability List -up-> Source Description',
  );
});

test('RC-26, RC-27: hashes, lengths and types in the lists match the bytes and headers served', async (t) => {
  const { sim } = await setup(t, { initialResources: 40, oddNames: 1 });
  await sim.changeBatch(20);
  await sim.flush();
  const rl = await getDoc(sim.resourceListUrl);
  assert.equal(rl.kind, 'resource-list');
  assert.ok(rl.entries.length >= 30);
  for (const e of rl.entries) {
    const res = await get(e.loc);
    assert.equal(res.status, 200, `GET ${e.loc}`);
    assert.deepEqual(verifyBytes(e.md!.hash!, res.body), [], `hashes of ${e.loc}`);
    assert.equal(e.md!.hash!.length, 2, 'md5 and sha-256');
    assert.equal(res.body.length, e.md!.length);
    assert.equal(res.headers['content-length'], String(e.md!.length));
    assert.ok(String(res.headers['content-type']).startsWith(e.md!.type!));
    assert.equal(res.headers['last-modified'], new Date(e.lastmod!.epochMs).toUTCString());
    const etag = res.headers.etag as string;
    const again = await request(e.loc, { headers: { 'if-none-match': etag } });
    await again.body.dump();
    assert.equal(again.statusCode, 304, 'ETag revalidates');
  }
  const { changes } = await walkChangeLists(sim);
  const snapshot = sim.snapshot();
  for (const c of changes.filter((x) => x.change !== 'deleted')) {
    assert.ok(
      c.hash && c.length !== undefined && c.type,
      'created/updated entries carry hash, length, type',
    );
  }
  // The newest change per URI describes the current bytes.
  const newest = new Map(changes.map((c) => [c.uri, c]));
  for (const [uri, c] of newest) {
    const s = snapshot.get(uri);
    if (c.change === 'deleted') {
      assert.equal(s, undefined, `${uri} deleted`);
      continue;
    }
    assert.deepEqual(
      verifyBytes(c.hash!, s!.bytes),
      [],
      `newest change of ${uri} matches its bytes`,
    );
  }
});

test('RC-14..RC-16: the Resource List Index and its parts list exactly snapshot() at `at` = the last until', async (t) => {
  const { sim } = await setup(t, { initialResources: 23, pageSize: 5 });
  await sim.changeBatch(9);
  await sim.flush();
  const index = await getDoc(sim.resourceListUrl);
  assert.equal(index.kind, 'resource-list-index');
  assert.equal(link(index, 'up'), sim.capabilityListUrl);
  assert.equal(
    index.md.at?.lexical,
    sim.lastUntil(),
    'RC-15: at = the until of the last change batch it reflects',
  );
  const listed = new Map<string, { sha256: string; length: number }>();
  for (const part of index.entries) {
    const list = await getDoc(part.loc);
    assert.equal(list.kind, 'resource-list');
    assert.equal(link(list, 'up'), sim.capabilityListUrl);
    assert.equal(link(list, 'index'), sim.resourceListUrl, 'RC-14: part rel="index" -> the index');
    assert.equal(list.md.at?.lexical, index.md.at?.lexical);
    assert.ok(list.entries.length <= 5);
    for (const e of list.entries) {
      assert.ok(!listed.has(e.loc), `${e.loc} listed once`);
      listed.set(e.loc, {
        sha256: e.md!.hash!.find((h) => h.algorithm === 'sha-256')!.hex!,
        length: e.md!.length!,
      });
    }
  }
  const snap = new Map(
    [...sim.snapshot()].map(([uri, s]) => [uri, { sha256: s.sha256, length: s.length }]),
  );
  assert.deepEqual(listed, snap);
  // A change makes a new snapshot; the parts of the old one stay readable (a walk in progress).
  await sim.changeBatch(3);
  const index2 = await getDoc(sim.resourceListUrl);
  assert.notEqual(index2.entries[0]!.loc, index.entries[0]!.loc);
  assert.equal((await get(index.entries[0]!.loc)).status, 200);
});

test('RT-2, RT-3: the topic answers HEAD and GET with 200, application/xml, Link self + hub, and the latest payload', async (t) => {
  const { sim, hub } = await setup(t);
  const empty = await get(sim.topicUrl, 'HEAD');
  assert.equal(empty.status, 200);
  assert.equal(empty.headers['content-length'], '0', 'RT-3: no payload yet -> Content-Length: 0');
  await sim.changeBatch(3);
  for (const method of ['HEAD', 'GET'] as const) {
    const r = await get(sim.topicUrl, method);
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/xml');
    const links = parseLinkHeader(r.headers.link as string);
    assert.equal(firstLinkWithRel(links, 'self'), sim.topicUrl);
    assert.equal(firstLinkWithRel(links, 'hub'), hub.url);
    if (method === 'GET') {
      assert.equal(r.body.toString('utf8'), sim.notificationsMade().at(-1)!.body.toString('utf8'));
      assert.equal(parseChangeNotification(r.body.toString('utf8')).until.lexical, sim.lastUntil());
    }
  }
  const quiet = await startSourceSimulator({ topicBody: 'empty', hubUrl: hub.url });
  t.after(() => quiet.close());
  await quiet.changeBatch(2);
  const r = await get(quiet.topicUrl);
  assert.equal(r.status, 200);
  assert.equal(
    r.headers['content-length'],
    '0',
    'RT-3: a topic that serves no content says Content-Length: 0',
  );
});
