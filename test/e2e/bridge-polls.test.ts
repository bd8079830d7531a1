// The point of the bridge: the Source is polled once per interval by the hub, however many
// subscribers there are. A list-only Source simulator, the real hub bridging it, and 1 or 25 WebSub
// subscriptions (plain callback receivers over real HTTP): the Source's Change List traffic is the
// bridge's alone, bounded by the interval, and every subscriber receives every bridged notification.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { startHub } from '@rsnotify/hub';
import { startSourceSimulator } from '../src/source-simulator/index.js';
import { sleep, waitFor } from '../src/harness/index.js';

const INTERVAL_MS = 400;
const WINDOW_MS = 4_000;

async function callbacks(): Promise<{
  server: Server;
  base: string;
  bodies: Map<string, Buffer[]>;
  verified: Set<string>;
}> {
  const bodies = new Map<string, Buffer[]>();
  const verified = new Set<string>();
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET') {
      verified.add(u.pathname);
      res.end(u.searchParams.get('hub.challenge') ?? '');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const list = bodies.get(u.pathname) ?? [];
      list.push(Buffer.concat(chunks));
      bodies.set(u.pathname, list);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    server,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    verified,
  };
}

for (const subscribers of [1, 25]) {
  test(`bridge: the Source gets one poll per interval with ${subscribers} subscriber(s)`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'rsnotify-bridge-polls-'));
    const sim = await startSourceSimulator({ seed: 5, initialResources: 10, listOnly: true });
    const hub = await startHub({
      host: '127.0.0.1',
      port: 0,
      dbFile: join(dir, 'hub.db'),
      allowPrivateNetworks: true,
      logLevel: 'silent',
    });
    const cb = await callbacks();
    t.after(async () => {
      await hub.close();
      await sim.close();
      await new Promise<void>((r) => {
        cb.server.close(() => r());
        cb.server.closeAllConnections();
      });
      rmSync(dir, { recursive: true, force: true });
    });
    const { topic } = await hub.addBridgedSource('sim', sim.baseUrl, { intervalMs: INTERVAL_MS });
    for (let i = 0; i < subscribers; i++) {
      const body = new URLSearchParams({
        'hub.mode': 'subscribe',
        'hub.topic': topic,
        'hub.callback': `${cb.base}/s${i}`,
      }).toString();
      const res = await request(hub.url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
      await res.body.dump();
      assert.equal(res.statusCode, 202);
    }
    await waitFor(() => cb.verified.size === subscribers, {
      timeoutMs: 30_000,
      what: 'every subscription verified',
    });
    await waitFor(() => sim.stats().changeListIndexRequests > 0, {
      timeoutMs: 30_000,
      what: 'the bridge polling',
    });

    const before = sim.stats();
    const started = Date.now();
    while (Date.now() - started < WINDOW_MS) {
      await sim.changeBatch(3);
      await sleep(150);
    }
    const after = sim.stats();
    const elapsed = Date.now() - started;
    const polls = after.changeListIndexRequests - before.changeListIndexRequests;
    // An upper bound only: a loaded machine polls less often, never more.
    assert.ok(
      polls <= Math.ceil(elapsed / INTERVAL_MS) + 1,
      `${polls} polls of the index in ${elapsed} ms at one per ${INTERVAL_MS} ms`,
    );
    assert.ok(polls >= 1, 'the bridge polled during the window');
    // Nobody but the bridge reads the Change Lists: every request the Source answered came from it.
    assert.ok(
      hub.bridgeRequestsTo(sim.baseUrl) >= after.changeListRequests,
      'Change List requests all came from the bridge',
    );

    // Fan-out: every subscriber gets the same notifications, byte for byte.
    await waitFor(
      async () => {
        const counts = [...Array(subscribers).keys()].map(
          (i) => (cb.bodies.get(`/s${i}`) ?? []).length,
        );
        return counts.every((c) => c === counts[0]) && counts[0]! > 0;
      },
      { timeoutMs: 30_000, what: 'every subscriber received the same number of notifications' },
    );
    const reference = Buffer.concat(cb.bodies.get('/s0')!);
    for (let i = 1; i < subscribers; i++)
      assert.ok(
        Buffer.concat(cb.bodies.get(`/s${i}`)!).equals(reference),
        `subscriber ${i} got the same bytes`,
      );
  });
}
