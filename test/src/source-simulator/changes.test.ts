// The simulator's changes, read back over real HTTP: notifications contiguous and mirrored in the
// Change Lists across rollovers and retention, seeds that repeat, explicit and automatic changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compareDateTime,
  entryToChange,
  firstLinkWithRel,
  parseChangeNotification,
  parseLinkHeader,
} from '@rsnotify/shared';
import { get, setup, walkChangeLists, changeKey } from './sim-test-helpers.js';
import { startSourceSimulator } from './index.js';

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
