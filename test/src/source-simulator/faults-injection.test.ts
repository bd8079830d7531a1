// Each fault switch, flipped at run time, does what it says and nothing else: notifications are
// dropped, duplicated, reordered or delayed on the way to a (capture) hub while the Change Lists keep
// every change; the Change List lags; requests fail or stall; bytes stop matching their hashes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import {
  entryToChange,
  parseChangeNotification,
  parseDocument,
  parseHttpDate,
  verifyBytes,
  type ResourceSyncDocument,
} from '@rsnotify/shared';
import { startCaptureHub, type CaptureHub } from './capture-hub.js';
import { startSourceSimulator, type SimulatorOptions, type SourceSimulator } from './index.js';

async function get(url: string): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}> {
  const res = await request(url);
  return {
    status: res.statusCode,
    headers: res.headers,
    body: Buffer.from(await res.body.arrayBuffer()),
  };
}

async function getDoc(url: string): Promise<ResourceSyncDocument> {
  const r = await get(url);
  assert.equal(r.status, 200, `GET ${url}`);
  return parseDocument(r.body.toString('utf8'), { baseUrl: url });
}

async function setup(
  t: { after: (fn: () => Promise<void>) => void },
  options: SimulatorOptions = {},
): Promise<{ sim: SourceSimulator; hub: CaptureHub }> {
  const hub = await startCaptureHub();
  const sim = await startSourceSimulator({
    seed: 5,
    initialResources: 10,
    hubUrl: hub.url,
    token: 't',
    ...options,
  });
  t.after(async () => {
    await sim.close();
    await hub.close();
  });
  return { sim, hub };
}

const received = (hub: CaptureHub) =>
  hub.received.map((r) => parseChangeNotification(r.body.toString('utf8')));

async function changeListUntils(
  sim: SourceSimulator,
): Promise<{ changes: number; lastTime?: string }> {
  const index = await getDoc(sim.changeListIndexUrl);
  let changes = 0;
  let lastTime: string | undefined;
  for (const e of index.entries) {
    const list = await getDoc(e.loc);
    changes += list.entries.length;
    const last = list.entries.at(-1);
    if (last) lastTime = entryToChange(last)?.time?.lexical;
  }
  return { changes, ...(lastTime ? { lastTime } : {}) };
}

async function waitUntil(
  probe: () => Promise<boolean> | boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

test('RN-5 gap: a dropped notification never reaches the hub, but its changes are in the Change Lists', async (t) => {
  const { sim, hub } = await setup(t);
  await sim.changeBatch(2);
  sim.faults.dropNext = 1;
  await sim.changeBatch(3);
  await sim.changeBatch(4);
  await sim.flush();
  const ns = received(hub);
  assert.equal(ns.length, 2);
  const made = sim.notificationsMade();
  assert.notEqual(ns[1]!.from.lexical, ns[0]!.until.lexical, 'the receiver sees a gap');
  assert.equal(ns[1]!.from.lexical, made[1]!.until, 'the gap is exactly the dropped interval');
  assert.equal(sim.postLog()[1]!.fate, 'dropped');
  assert.equal(sim.faults.dropNext, 0, 'the count was consumed');
  assert.equal((await changeListUntils(sim)).changes, 9, 'every change is in the Change Lists');
});

test('duplicates: with duplicateProbability 1 every notification arrives twice, byte-identical', async (t) => {
  const { sim, hub } = await setup(t);
  sim.faults.duplicateProbability = 1;
  await sim.changeBatch(2);
  await sim.changeBatch(2);
  await sim.flush();
  assert.equal(hub.received.length, 4);
  assert.deepEqual(hub.received[0]!.body, hub.received[1]!.body);
  assert.deepEqual(hub.received[2]!.body, hub.received[3]!.body);
  assert.notDeepEqual(hub.received[0]!.body, hub.received[2]!.body);
  assert.equal(sim.stats().notifications.duplicated, 2);
});

test('reorder: a reordered notification is posted after the one made next', async (t) => {
  const { sim, hub } = await setup(t);
  sim.faults.reorderProbability = 1;
  await sim.changeBatch(1);
  sim.faults.reorderProbability = 0;
  await sim.changeBatch(1);
  await sim.changeBatch(1);
  await sim.flush();
  const made = sim.notificationsMade().map((n) => n.until);
  assert.deepEqual(
    received(hub).map((n) => n.until.lexical),
    [made[1], made[0], made[2]],
  );
});

test('delay: a delayed notification is overtaken by later ones, and flush() waits for it', async (t) => {
  const { sim, hub } = await setup(t);
  sim.faults.delayProbability = 1;
  sim.faults.delayMs = 400;
  await sim.changeBatch(1);
  sim.faults.delayProbability = 0;
  await sim.changeBatch(1);
  await sim.changeBatch(1);
  await sim.flush();
  const made = sim.notificationsMade().map((n) => n.until);
  assert.deepEqual(
    received(hub).map((n) => n.until.lexical),
    [made[1], made[2], made[0]],
  );
});

test('Change List lag: changes appear in the Change Lists only after the lag, and Date says how far they are complete', async (t) => {
  // The Source's clock runs an hour behind the real one, so its Date header cannot be mistaken for
  // the one node adds, and the lag is released by moving the clock, not by waiting.
  let now = Date.now() - 3_600_000;
  const { sim, hub } = await setup(t, { clock: () => now });
  await sim.changeBatch(2);
  sim.faults.changeListLagMs = 60_000;
  await sim.changeBatch(3);
  await sim.flush();
  assert.equal(hub.received.length, 2, 'the notification went out at once');
  const notified = received(hub)[1]!;
  const lagging = await get(sim.changeListIndexUrl);
  assert.equal(
    lagging.headers.date,
    new Date(notified.from.epochMs).toUTCString(),
    'Date = the point the lists are complete up to',
  );
  assert.equal((await changeListUntils(sim)).changes, 2, 'the lagging batch is not visible yet');
  now += 59_000;
  assert.equal((await changeListUntils(sim)).changes, 2, 'still lagging');
  now += 1_000;
  assert.equal((await changeListUntils(sim)).changes, 5, 'visible once the lag has passed');
  const current = await get(sim.changeListIndexUrl);
  assert.ok(
    parseHttpDate(current.headers.date as string)! > Date.now() - 60_000,
    'no lag: the ordinary Date again',
  );
});

test('server errors: serverErrorNext answers the next N requests 500; the scope limits probabilistic ones', async (t) => {
  const { sim } = await setup(t);
  sim.faults.serverErrorNext = 2;
  assert.equal((await get(sim.wellKnownUrl)).status, 500);
  assert.equal((await get(sim.capabilityListUrl)).status, 500);
  assert.equal((await get(sim.capabilityListUrl)).status, 200);
  sim.faults.serverErrorProbability = 1;
  sim.faults.serverErrorScope = 'resources';
  const [uri] = sim.snapshot().keys();
  assert.equal((await get(uri!)).status, 500);
  assert.equal((await get(sim.resourceListUrl)).status, 200);
  sim.faults.serverErrorProbability = 0;
  assert.equal((await get(uri!)).status, 200);
  assert.equal(sim.stats().injectedServerErrors, 3);
});

test('slow responses: a request made while slowProbability = 1 completes after one made later without it', async (t) => {
  const { sim } = await setup(t);
  sim.faults.slowProbability = 1;
  sim.faults.slowMs = 3_000;
  const order: string[] = [];
  const slow = get(sim.wellKnownUrl).then((r) => {
    order.push('slow');
    return r;
  });
  await waitUntil(() => sim.stats().requests >= 1, 'the slow request to arrive');
  sim.faults.slowProbability = 0;
  const fast = await get(sim.capabilityListUrl);
  order.push('fast');
  assert.equal(fast.status, 200);
  assert.equal((await slow).status, 200, 'a slow response is still a correct one');
  assert.deepEqual(order, ['fast', 'slow']);
});

test('hash mismatch: a corrupted resource is served with bytes that differ from what the lists say', async (t) => {
  const { sim, hub } = await setup(t);
  sim.faults.corruptNext = 1;
  await sim.makeChanges([{ change: 'created', path: 'corrupt me.txt', bytes: 'the listed bytes' }]);
  await sim.flush();
  const uri = `${sim.baseUrl}/resources/corrupt%20me.txt`;
  assert.deepEqual(sim.corruptedUris(), [uri]);
  const entry = received(hub)[0]!.entries[0]!;
  const served = await get(uri);
  assert.equal(served.status, 200);
  assert.notDeepEqual(
    verifyBytes(entry.md!.hash!, served.body),
    [],
    'the served bytes fail the hash check',
  );
  assert.deepEqual(
    verifyBytes(entry.md!.hash!, sim.snapshot().get(uri)!.bytes),
    [],
    'snapshot() keeps the listed truth',
  );
  sim.healCorruption();
  assert.deepEqual(verifyBytes(entry.md!.hash!, (await get(uri)).body), []);
});

test('RC-25 ResourceSync 1.0 mode: lastmod is the change time, no datetime, deletes carry no time', async (t) => {
  const { sim, hub } = await setup(t, { specVersion: '1.0' });
  await sim.makeChanges([
    { change: 'created', path: 'old/a.txt', bytes: 'a' },
    { change: 'updated', path: 'old/a.txt', bytes: 'b' },
    { change: 'deleted', path: 'old/a.txt' },
  ]);
  sim.faults.specVersion = '1.1';
  await sim.changeBatch(1);
  await sim.flush();
  const [legacy, modern] = received(hub);
  for (const e of legacy!.entries) {
    assert.equal(e.md!.datetime, undefined, 'no datetime in 1.0 mode');
    if (e.md!.change === 'deleted') assert.equal(e.lastmod, undefined, 'a delete carries no time');
    else
      assert.ok(
        e.lastmod && e.lastmod.key > legacy!.from.key && e.lastmod.key < legacy!.until.key,
        'lastmod is the change time',
      );
  }
  assert.ok(
    modern!.entries.every((e) => e.md!.datetime !== undefined),
    'back to 1.1: datetime',
  );
});

test('RT-7: a 5xx from the hub is retried and the order kept; a 403 is not retried', async (t) => {
  const { sim, hub } = await setup(t, {
    retry: { initialDelayMs: 20, maxDelayMs: 50, maxAgeMs: 10_000 },
  });
  hub.respondWith((_req, i) => (i < 2 ? 503 : 200));
  await sim.changeBatch(1);
  await sim.changeBatch(1);
  await sim.flush();
  const log = sim.postLog();
  assert.equal(log[0]!.fate, 'accepted');
  assert.equal(log[0]!.attempts, 3);
  assert.equal(log[1]!.fate, 'accepted');
  const made = sim.notificationsMade().map((n) => n.until);
  assert.deepEqual(
    received(hub)
      .slice(-2)
      .map((n) => n.until.lexical),
    made,
    'retries keep publish order',
  );
  hub.respondWith(403);
  await sim.changeBatch(1);
  await sim.flush();
  assert.equal(sim.postLog()[2]!.fate, 'rejected');
  assert.equal(sim.postLog()[2]!.attempts, 1);
});

test('faults can be switched through the /_sim/faults control endpoint of a running simulator', async (t) => {
  const { sim } = await setup(t);
  const res = await request(`${sim.baseUrl}/_sim/faults`, {
    method: 'POST',
    body: JSON.stringify({ dropProbability: 0.25, changeListLagMs: 10 }),
  });
  assert.equal(res.statusCode, 200);
  await res.body.dump();
  assert.equal(sim.faults.dropProbability, 0.25);
  assert.equal(sim.faults.changeListLagMs, 10);
  const bad = await request(`${sim.baseUrl}/_sim/faults`, {
    method: 'POST',
    body: JSON.stringify({ nope: 1 }),
  });
  assert.equal(bad.statusCode, 400);
  await bad.body.dump();
  const state = await request(`${sim.baseUrl}/_sim/state`);
  const json = (await state.body.json()) as {
    resources: Record<string, { sha256: string; length: number }>;
  };
  assert.deepEqual(Object.keys(json.resources).sort(), [...sim.snapshot().keys()].sort());
});
