// The simulator's documents, read back over real HTTP with @rsnotify/shared's parsers, must be a
// consistent ResourceSync Source: notifications contiguous and mirrored in the Change Lists, links
// right, hashes and lengths true to the bytes, the Resource List equal to snapshot().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import {
  compareDateTime,
  entryToChange,
  extractEmbeddedLinks,
  extractRobotsSitemaps,
  firstLinkWithRel,
  notificationChannels,
  parseChangeNotification,
  parseDocument,
  parseLinkHeader,
  verifyBytes,
  type CapabilityList,
  type Change,
  type ResourceSyncDocument,
} from '@rsnotify/shared';
import { startCaptureHub, type CaptureHub } from './capture-hub.js';
import { startSourceSimulator, type SimulatorOptions, type SourceSimulator } from './index.js';

interface Fetched {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

async function get(url: string, method: 'GET' | 'HEAD' = 'GET'): Promise<Fetched> {
  const res = await request(url, { method });
  const body = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, body };
}

async function getDoc(url: string): Promise<ResourceSyncDocument> {
  const r = await get(url);
  assert.equal(r.status, 200, `GET ${url}`);
  assert.equal(r.headers['content-type'], 'application/xml', `content type of ${url}`);
  return parseDocument(r.body.toString('utf8'), { baseUrl: url });
}

const link = (doc: ResourceSyncDocument, rel: string) => doc.links.find((l) => l.rel === rel)?.href;

async function setup(
  t: { after: (fn: () => Promise<void>) => void },
  options: SimulatorOptions = {},
): Promise<{ sim: SourceSimulator; hub: CaptureHub }> {
  const hub = await startCaptureHub();
  const sim = await startSourceSimulator({
    seed: 11,
    initialResources: 12,
    hubUrl: hub.url,
    token: 'source-token',
    ...options,
  });
  t.after(async () => {
    await sim.close();
    await hub.close();
  });
  return { sim, hub };
}

/** Every change of the Change Lists, walked from the index, checking list links and tiling. */
async function walkChangeLists(
  sim: SourceSimulator,
): Promise<{ index: ResourceSyncDocument; lists: ResourceSyncDocument[]; changes: Change[] }> {
  const index = await getDoc(sim.changeListIndexUrl);
  assert.equal(index.kind, 'change-list-index');
  assert.equal(link(index, 'up'), sim.capabilityListUrl, 'index rel="up" -> Capability List');
  assert.equal(
    index.md.from?.lexical,
    index.entries[0]?.md?.from?.lexical,
    "RC-24: the index from is its first list's from",
  );
  const lists: ResourceSyncDocument[] = [];
  const changes: Change[] = [];
  for (const [i, entry] of index.entries.entries()) {
    const list = await getDoc(entry.loc);
    assert.equal(list.kind, 'change-list');
    assert.equal(link(list, 'up'), sim.capabilityListUrl, 'list rel="up" -> Capability List');
    assert.equal(
      link(list, 'index'),
      sim.changeListIndexUrl,
      'list rel="index" -> Change List Index',
    );
    assert.equal(list.md.from?.lexical, entry.md?.from?.lexical, 'index from = list from');
    assert.equal(list.md.until?.lexical, entry.md?.until?.lexical, 'index until = list until');
    const last = i === index.entries.length - 1;
    assert.equal(list.md.until === undefined, last, 'RC-24: only the last list is open');
    if (i > 0)
      assert.equal(
        list.md.from!.lexical,
        lists[i - 1]!.md.until!.lexical,
        'lists tile time: from = previous until',
      );
    for (const e of list.entries) {
      const c = entryToChange(e)!;
      if (c.time) {
        assert.ok(compareDateTime(list.md.from!, c.time) < 0, 'RC-25: from < datetime');
        if (list.md.until)
          assert.ok(compareDateTime(c.time, list.md.until) < 0, 'RC-25: datetime < until');
      }
      changes.push(c);
    }
    lists.push(list);
  }
  return { index, lists, changes };
}

const changeKey = (c: Change) =>
  `${c.change} ${c.uri} ${c.time?.lexical ?? '-'} ${c.length ?? '-'} ${c.hash?.map((h) => h.value).join(',') ?? '-'}`;

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

test("RN-1..RN-5, RN-11, RN-13, RT-4: posted notifications are valid, contiguous, split, and carry the Source's credentials", async (t) => {
  const { sim, hub } = await setup(t, { maxEntriesPerNotification: 7 });
  await sim.changeBatch(5);
  await sim.changeBatch(1);
  await sim.changeBatch(30); // RN-13: 7 + 7 + 7 + 7 + 2
  await sim.changeBatch(0); // nothing to say: no notification
  await sim.flush();
  assert.equal(hub.received.length, 2 + 5);
  let previousUntil: string | undefined;
  for (const req of hub.received) {
    assert.equal(req.method, 'POST');
    assert.equal(req.headers['content-type'], 'application/xml', 'RT-4: Content-Type');
    assert.equal(req.headers.authorization, 'Bearer source-token', "RT-5: the Source's token");
    const links = parseLinkHeader(req.headers.link as string);
    assert.equal(firstLinkWithRel(links, 'self'), sim.topicUrl, 'RT-4: rel="self" = topic');
    assert.equal(firstLinkWithRel(links, 'hub'), hub.url, 'RT-4: rel="hub" = hub');
    const n = parseChangeNotification(req.body.toString('utf8'));
    assert.ok(
      n.entries.length >= 1 && n.entries.length <= 7,
      'RN-13: at most maxEntriesPerNotification entries',
    );
    if (previousUntil !== undefined)
      assert.equal(n.from.lexical, previousUntil, 'RN-5: from = previous until, exactly');
    let previousTime = n.from;
    for (const e of n.entries) {
      const c = entryToChange(e)!;
      assert.ok(c.time, 'RS 1.1: every change carries datetime');
      assert.ok(
        compareDateTime(previousTime, c.time!) < 0,
        'RN-4, RN-11: from < times in forward order',
      );
      previousTime = c.time!;
    }
    assert.ok(compareDateTime(previousTime, n.until) < 0, 'RN-11: datetime < until');
    assert.match(n.until.lexical, /\.\d{6}Z$/, 'microsecond precision');
    previousUntil = n.until.lexical;
  }
  assert.equal(sim.lastUntil(), previousUntil);
  assert.equal(sim.stats().notifications.accepted, 7);
});

test('RC-21, RC-24: every change of every notification is in the Change Lists, in the same order, across rollovers', async (t) => {
  const { sim, hub } = await setup(t, {
    changeListMaxEntries: 10,
    maxEntriesPerNotification: 4,
    repeatProbability: 0.5,
  });
  for (let i = 0; i < 12; i++) await sim.changeBatch(1 + (i % 5));
  await sim.flush();
  const notified = hub.received.flatMap((r) =>
    parseChangeNotification(r.body.toString('utf8')).entries.map((e) => entryToChange(e)!),
  );
  const { lists, changes, index } = await walkChangeLists(sim);
  assert.ok(lists.length >= 3, `rollover made several lists (${lists.length})`);
  assert.deepEqual(changes.map(changeKey), notified.map(changeKey));
  const uris = notified.map((c) => c.uri);
  assert.ok(uris.length > new Set(uris).size, 'several changes to one URI close together');
  assert.equal(index.md.from?.lexical, lists[0]!.md.from?.lexical);
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

test('retention drops closed Change Lists, so the index from moves forward with time', async (t) => {
  let now = Date.now();
  const { sim } = await setup(t, {
    clock: () => now,
    changeListMaxEntries: 4,
    retentionMs: 60_000,
  });
  for (let i = 0; i < 4; i++) {
    await sim.changeBatch(4);
    now += 10_000;
  }
  const before = await walkChangeLists(sim);
  assert.equal(before.lists.length, 5);
  now += 35_000; // the first two lists closed more than 60 s ago now
  const after = await walkChangeLists(sim);
  assert.equal(after.lists.length, 3);
  assert.ok(compareDateTime(after.index.md.from!, before.index.md.from!) > 0, 'from moved forward');
  assert.equal(after.index.md.from!.lexical, before.lists[2]!.md.from!.lexical);
  assert.equal((await get(before.index.entries[0]!.loc)).status, 404, 'a dropped list is gone');
});

test('RC-22: the open Change List closes after changeListMaxAgeMs and the next one starts at its until', async (t) => {
  let now = Date.now();
  const { sim } = await setup(t, { clock: () => now, changeListMaxAgeMs: 5_000 });
  await sim.changeBatch(3);
  now += 6_000;
  await sim.changeBatch(2);
  const { lists } = await walkChangeLists(sim);
  assert.equal(lists.length, 2);
  assert.equal(lists[0]!.entries.length, 3);
  assert.equal(lists[1]!.entries.length, 2);
});

test('a seed fixes the resources and the sequence of changes', async (t) => {
  const run = async () => {
    const sim = await startSourceSimulator({ seed: 99, initialResources: 30 });
    t.after(() => sim.close());
    await sim.changeBatch(40);
    await sim.changeBatch(15);
    const rel = (uri: string) => uri.slice(sim.baseUrl.length);
    return {
      resources: [...sim.snapshot()].map(([uri, s]) => `${rel(uri)} ${s.sha256}`),
      changes: sim
        .notificationsMade()
        .flatMap((n) =>
          parseChangeNotification(n.body.toString('utf8')).entries.map(
            (e) => `${e.md!.change} ${rel(e.loc)}`,
          ),
        ),
    };
  };
  const a = await run();
  const b = await run();
  assert.deepEqual(a, b);
  assert.equal(a.changes.length, 55);
});

test('makeChanges applies explicit changes atomically and refuses impossible ones (RSN_SIM_BAD_CHANGE)', async (t) => {
  const { sim } = await setup(t);
  await sim.makeChanges([
    { change: 'created', path: 'docs/hello world.txt', bytes: 'hello' },
    { change: 'updated', path: 'docs/hello world.txt', bytes: 'hello again' },
    { change: 'created', path: 'search', query: [['q', 'a&b']], bytes: '?' },
  ]);
  const uri = `${sim.baseUrl}/resources/docs/hello%20world.txt`;
  assert.equal(sim.snapshot().get(uri)?.bytes.toString(), 'hello again');
  assert.equal((await get(uri)).body.toString(), 'hello again');
  assert.equal((await get(`${sim.baseUrl}/resources/search?q=a%26b`)).body.toString(), '?');
  const before = sim.snapshot().size;
  await assert.rejects(
    sim.makeChanges([
      { change: 'deleted', path: 'docs/hello world.txt' },
      { change: 'updated', path: 'docs/hello world.txt' },
    ]),
    (err: Error & { code?: string }) => err.code === 'RSN_SIM_BAD_CHANGE',
  );
  assert.equal(sim.snapshot().size, before, 'nothing applied');
});

test('RN-5 in automatic mode: start(rate) publishes contiguous notifications until pause()', async (t) => {
  const { sim, hub } = await setup(t, { batchIntervalMs: 20 });
  sim.start(500);
  assert.equal(sim.running, true);
  const deadline = Date.now() + 20_000;
  while (hub.received.length < 10 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  sim.pause();
  await sim.flush();
  const ns = hub.received.map((r) => parseChangeNotification(r.body.toString('utf8')));
  assert.ok(ns.length >= 10);
  for (let i = 1; i < ns.length; i++)
    assert.equal(ns[i]!.from.lexical, ns[i - 1]!.until.lexical, 'RN-5');
  assert.equal(ns.at(-1)!.until.lexical, sim.lastUntil());
  const { changes } = await walkChangeLists(sim);
  assert.equal(changes.length, sim.stats().changes);
});
