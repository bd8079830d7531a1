// The bridge inside real hubs on PostgreSQL (a server the test run starts), against a fake Source
// over real HTTP: bridged changes reach a subscriber; a restarted hub resumes from its last
// committed poll; and with two hub processes on one database exactly one polls (the cluster
// leader), the other takes over when the leader stops, and nothing is delivered twice or skipped.
import { createServer } from 'node:net';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseChangeNotification } from '@rsnotify/shared';
import { startHub, type RunningHub } from '@rsnotify/hub';
import { testPostgres } from '../../scripts/postgres-server.mjs';
import { FakeSource } from './bridge-source.js';
import { receiverFor, subscribe, waitFor, type Receiver } from './helpers.js';

const server = await testPostgres();
const skip = 'skip' in server ? server.skip : false;

const options = (dbFile: string) =>
  ({
    host: '127.0.0.1',
    port: 0,
    dbFile,
    allowPrivateNetworks: true,
    logLevel: 'silent',
    leaseMinSeconds: 1,
  }) as const;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

const locs = (receiver: Receiver) =>
  receiver
    .deliveriesTo('/cb')
    .flatMap((d) => parseChangeNotification(d.body.toString('utf8')).entries.map((e) => e.loc));

function assertContiguous(receiver: Receiver): void {
  const bodies = receiver
    .deliveriesTo('/cb')
    .map((d) => parseChangeNotification(d.body.toString('utf8')));
  for (let i = 1; i < bodies.length; i++)
    assert.equal(bodies[i]!.from.lexical, bodies[i - 1]!.until.lexical, `RN-5 at ${i}`);
}

test(
  'bridge on PostgreSQL: a restarted hub resumes from its last committed poll, every change delivered once, in order',
  { skip },
  async (t) => {
    if ('skip' in server) return;
    const db = server.newDatabase('bridge_restart');
    const source = await FakeSource.start();
    t.after(() => source.close());
    source.add('a');
    let hub = await startHub(options(db));
    t.after(() => hub.close());
    const view = await hub.addBridgedSource('src', `${source.baseUrl}/capabilitylist.xml`, {
      intervalMs: 100,
    });
    await waitFor(async () => (await hub.listBridgedSources())[0]?.coveredTo, 'first poll');
    const receiver = await receiverFor(t);
    await subscribe(hub, receiver, view.topic, '/cb');
    const expected: string[] = [];
    const change = (name: string) => {
      source.add(name);
      expected.push(`${source.baseUrl}/r/${name}`);
    };
    for (let i = 0; i < 4; i++) {
      change(`x${i}`);
      await new Promise((r) => setTimeout(r, 60));
    }
    await hub.close();
    for (let i = 0; i < 4; i++) change(`y${i}`);
    hub = await startHub({ ...options(db), port: hub.port });
    for (let i = 0; i < 4; i++) {
      change(`z${i}`);
      await new Promise((r) => setTimeout(r, 60));
    }
    await waitFor(() => locs(receiver).length >= expected.length, 'every change delivered');
    await new Promise((r) => setTimeout(r, 400)); // a few more polls: nothing may come twice
    assert.deepEqual(locs(receiver), expected);
    assertContiguous(receiver);
  },
);

test(
  'bridge on PostgreSQL: two hubs, one poller; the leader stops, the other polls on from the stored position',
  { skip },
  async (t) => {
    if ('skip' in server) return;
    const db = server.newDatabase('bridge_two');
    const source = await FakeSource.start();
    t.after(() => source.close());
    source.add('a');
    // One public address for the cluster (the second's): the bridged topic is the same on both.
    const [portA, portB] = [await freePort(), await freePort()];
    const publicUrl = `http://127.0.0.1:${portB}/hub`;
    const first = await startHub({ ...options(db), port: portA, publicUrl });
    const second = await startHub({ ...options(db), port: portB, publicUrl });
    const hubs: RunningHub[] = [first, second];
    t.after(async () => {
      for (const h of hubs) await h.close();
    });
    // Added on the process that does not lead: the leader hears of it (pg_notify) and polls it.
    const leader = await waitFor(() => hubs.find((h) => h.bridgePolling()), 'a poller');
    const other = hubs.find((h) => h !== leader)!;
    const view = await other.addBridgedSource('src', `${source.baseUrl}/capabilitylist.xml`, {
      intervalMs: 100,
    });
    await waitFor(async () => (await other.listBridgedSources())[0]?.coveredTo, 'first poll');
    const receiver = await receiverFor(t);
    await subscribe(other, receiver, view.topic, '/cb');
    const expected: string[] = [];
    const change = (name: string) => {
      source.add(name);
      expected.push(`${source.baseUrl}/r/${name}`);
    };
    for (let i = 0; i < 4; i++) {
      change(`x${i}`);
      await new Promise((r) => setTimeout(r, 80));
    }
    await waitFor(() => locs(receiver).length >= expected.length, 'changes via the leader');
    assert.ok(leader.bridgeRequestsTo(source.baseUrl) > 0, 'the leader polls');
    assert.equal(other.bridgeRequestsTo(source.baseUrl), 0, 'the other never polls meanwhile');
    assert.equal(other.bridgePolling(), false);

    await leader.close();
    hubs.splice(hubs.indexOf(leader), 1);
    await waitFor(() => other.bridgePolling(), 'the other process takes over polling', 30_000);
    for (let i = 0; i < 4; i++) {
      change(`y${i}`);
      await new Promise((r) => setTimeout(r, 80));
    }
    await waitFor(() => locs(receiver).length >= expected.length, 'changes via the new poller');
    await new Promise((r) => setTimeout(r, 400));
    assert.deepEqual(locs(receiver), expected, 'nothing twice, nothing skipped, in order');
    assertContiguous(receiver);
    assert.ok(other.bridgeRequestsTo(source.baseUrl) > 0);
  },
);
