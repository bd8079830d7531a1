// Poll-to-push bridge benchmarks, each against its baseline in the same run:
// 1. Change-to-file latency through the bridge (list-only Source -> hub polls every I -> notification
//    -> subscriber -> file) next to a subscriber that polls the same Source itself every I. The same
//    changes are watched by both at once; changes land at random phases of the poll interval.
// 2. Source Change List requests per minute with 1 and 100 subscribers of the bridged channel (plain
//    WebSub callbacks: the subscribers' own work is not polling) next to what that many self-polling
//    subscribers cost, measured from the self-polling subscriber of scenario 1.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { startHub } from '@rsnotify/hub';
import { startSubscriber, uriToMirrorPath } from '@rsnotify/subscriber';
import { startSourceSimulator, type SourceSimulator } from '../../src/source-simulator/index.js';
import { sleep, waitFor } from '../../src/harness/index.js';
import { subscriberConfig } from '../../e2e/subscriber-helpers.js';
import type { BenchContext, BenchRow, BenchScenario } from '../types.js';
import { percentile } from '../lib/measure.js';
import { benchWorkspace as ws } from '../lib/workspace.js';

const INTERVAL_MS = 1_000;

async function fileHolds(path: string, expected: Buffer, t0: number): Promise<number> {
  for (;;) {
    const bytes = await readFile(path).catch(() => undefined);
    if (bytes?.equals(expected)) return performance.now() - t0;
    if (performance.now() - t0 > 30_000) throw new Error(`no file ${path} after 30 s`);
    await sleep(2);
  }
}

const latency: BenchScenario = {
  name: 'bridge change-to-file',
  async run(ctx) {
    const samples = Math.max(8, Math.round(60 * ctx.scale));
    const sim = await startSourceSimulator({ seed: 9, initialResources: 30, listOnly: true });
    const hubWs = ws(ctx, 'hub');
    const hub = await startHub({
      host: '127.0.0.1',
      port: 0,
      dbFile: join(hubWs.dir, 'hub.db'),
      allowPrivateNetworks: true,
      logLevel: 'warn',
    });
    const { topic } = await hub.addBridgedSource('sim', sim.wellKnownUrl, {
      intervalMs: INTERVAL_MS,
    });
    const bridged = ws(ctx, 'bridged');
    const polling = ws(ctx, 'polling');
    const viaBridge = await startSubscriber({
      ...subscriberConfig(bridged, sim.wellKnownUrl, { hub: hub.url, topic }),
      logLevel: 'warn',
    });
    const selfPoll = await startSubscriber({
      ...subscriberConfig(polling, sim.wellKnownUrl, { pollInterval: INTERVAL_MS }),
      logLevel: 'warn',
    });
    try {
      await waitFor(
        async () => {
          const s = (await viaBridge.status())[0];
          return s?.subscriptionState === 'active' && s.syncedUntil;
        },
        { what: 'bridged subscriber ready', timeoutMs: 60_000 },
      );
      await waitFor(async () => (await selfPoll.status())[0]?.syncedUntil, {
        what: 'polling subscriber ready',
        timeoutMs: 60_000,
      });
      const bridgeTimes: number[] = [];
      const pollTimes: number[] = [];
      const reqStart = {
        sim: sim.stats().changeListRequests,
        bridge: hub.bridgeRequestsTo(sim.baseUrl),
        at: performance.now(),
      };
      for (let i = 0; i < samples; i++) {
        await sleep(Math.random() * INTERVAL_MS); // a random phase of the poll interval
        const path = `bench/r${i % 10}.txt`;
        const bytes = Buffer.from(`change ${i} ${Math.random()}\n`);
        const existing = sim.snapshot().has(`${sim.baseUrl}/resources/${path}`);
        const t0 = performance.now();
        await sim.makeChanges([{ change: existing ? 'updated' : 'created', path, bytes }]);
        const uri = `${sim.baseUrl}/resources/${path}`;
        const [b, p] = await Promise.all([
          fileHolds(uriToMirrorPath(bridged.mirrorDir, uri), bytes, t0),
          fileHolds(uriToMirrorPath(polling.mirrorDir, uri), bytes, t0),
        ]);
        bridgeTimes.push(b);
        pollTimes.push(p);
      }
      const minutes = (performance.now() - reqStart.at) / 60_000;
      const bridgeReqs = hub.bridgeRequestsTo(sim.baseUrl) - reqStart.bridge;
      const selfReqs = sim.stats().changeListRequests - reqStart.sim - bridgeReqs;
      selfPollRequestsPerMinute = selfReqs / minutes;
      bridgeTimes.sort((a, b) => a - b);
      pollTimes.sort((a, b) => a - b);
      const note = `${samples} single changes at random phases, poll interval ${INTERVAL_MS} ms for both, same changes watched at once`;
      ctx.log(
        `bridge p50 ${percentile(bridgeTimes, 50).toFixed(0)} ms, self-poll p50 ${percentile(pollTimes, 50).toFixed(0)} ms`,
      );
      const row = (figure: string, p: number): BenchRow => ({
        scenario: 'bridge change-to-file',
        figure,
        value: percentile(bridgeTimes, p),
        unit: 'ms',
        baseline: {
          label: `subscriber polling itself, p${p}`,
          value: percentile(pollTimes, p),
          unit: 'ms',
        },
        ratio: percentile(bridgeTimes, p) / percentile(pollTimes, p),
        note,
      });
      return [
        row('latency p50 via the bridge (Change List -> hub poll -> push -> file)', 50),
        row('latency p99 via the bridge', 99),
      ];
    } finally {
      await viaBridge.close();
      await selfPoll.close();
      await hub.close();
      await sim.close();
    }
  },
};

/** Measured by scenario 1 (the self-polling subscriber), the baseline of scenario 2. */
let selfPollRequestsPerMinute: number | undefined;

async function requestsPerMinute(
  ctx: BenchContext,
  subscribers: number,
): Promise<{ perMinute: number; delivered: number }> {
  const sim: SourceSimulator = await startSourceSimulator({
    seed: 10,
    initialResources: 10,
    listOnly: true,
  });
  const w = ws(ctx, `rpm-${subscribers}`);
  const hub = await startHub({
    host: '127.0.0.1',
    port: 0,
    dbFile: join(w.dir, 'hub.db'),
    allowPrivateNetworks: true,
    logLevel: 'warn',
  });
  let delivered = 0;
  const verified = new Set<string>();
  const callbacks = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET') {
      verified.add(u.pathname);
      res.end(u.searchParams.get('hub.challenge') ?? '');
      return;
    }
    req.resume();
    req.on('end', () => {
      delivered++;
      res.end();
    });
  });
  await new Promise<void>((r) => callbacks.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(callbacks.address() as AddressInfo).port}`;
  try {
    const { topic } = await hub.addBridgedSource('sim', sim.wellKnownUrl, {
      intervalMs: INTERVAL_MS,
    });
    for (let i = 0; i < subscribers; i++) {
      const body = new URLSearchParams({
        'hub.mode': 'subscribe',
        'hub.topic': topic,
        'hub.callback': `${base}/s${i}`,
      }).toString();
      const res = await request(hub.url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
      await res.body.dump();
    }
    await waitFor(() => verified.size === subscribers, {
      what: 'subscriptions verified',
      timeoutMs: 60_000,
    });
    await waitFor(() => sim.stats().changeListIndexRequests > 0, {
      what: 'bridge polling',
      timeoutMs: 30_000,
    });
    const windowMs = Math.max(5_000, 30_000 * ctx.scale);
    const before = sim.stats().changeListRequests;
    const t0 = performance.now();
    while (performance.now() - t0 < windowMs) {
      await sim.changeBatch(2);
      await sleep(200);
    }
    const minutes = (performance.now() - t0) / 60_000;
    return { perMinute: (sim.stats().changeListRequests - before) / minutes, delivered };
  } finally {
    await hub.close();
    await sim.close();
    await new Promise<void>((r) => {
      callbacks.close(() => r());
      callbacks.closeAllConnections();
    });
  }
}

const traffic: BenchScenario = {
  name: 'bridge source traffic',
  async run(ctx) {
    const rows: BenchRow[] = [];
    for (const n of [1, 100]) {
      const r = await requestsPerMinute(ctx, n);
      ctx.log(
        `${n} subscriber(s): ${r.perMinute.toFixed(1)} Change List requests/min, ${r.delivered} deliveries`,
      );
      const self = selfPollRequestsPerMinute;
      rows.push({
        scenario: 'bridge source traffic',
        figure: `Source Change List requests/min, ${n} subscriber(s) via the bridge`,
        value: r.perMinute,
        unit: 'req/min',
        ...(self !== undefined
          ? {
              baseline: {
                label: `${n} self-polling subscriber(s) (measured x${n})`,
                value: self * n,
                unit: 'req/min',
              },
              ratio: r.perMinute / (self * n),
            }
          : {}),
        note: `poll interval ${INTERVAL_MS} ms; ${r.delivered} notifications delivered to the ${n} callback(s)${self === undefined ? '; baseline needs the change-to-file scenario in the same run' : ''}`,
      });
    }
    return rows;
  },
};

export const scenarios: BenchScenario[] = [latency, traffic];
export default latency;
