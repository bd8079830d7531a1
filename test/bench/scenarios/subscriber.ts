// Subscriber benchmarks, each with its raw baseline measured in the same run:
// 1. Notification intake: signed change notifications POSTed straight to a verified callback (the
//    subscriber checks the signature, commits the raw body to SQLite with synchronous=FULL, answers
//    202, then parses and orders it), next to a raw node:http receiver that reads the body and answers
//    202 doing nothing else, driven by the same undici Pool (64 in flight) in the same process.
// 2. Publish-to-file latency: the simulator makes one change and posts it to the real hub; the clock
//    stops when the mirror file holds the new bytes. Baseline: one plain GET of the same resource plus
//    a file write, in the same run.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Pool, request } from 'undici';
import { signatureHeader } from '@rsnotify/shared';
import { startSubscriber, uriToMirrorPath } from '@rsnotify/subscriber';
import { startSourceSimulator } from '../../src/source-simulator/index.js';
import { waitFor } from '../../src/harness/index.js';
import { startFakeHub } from '../../e2e/subscriber-fake-hub.js';
import { startE2EHub, subscriberConfig, type Workspace } from '../../e2e/subscriber-helpers.js';
import type { BenchContext, BenchRow, BenchScenario } from '../types.js';

const IN_FLIGHT = 64;

function ws(ctx: BenchContext, name: string): Workspace {
  const dir = join(ctx.tmpDir, name);
  return { dir, dataDir: join(dir, 'data'), mirrorDir: join(dir, 'mirror'), remove: async () => undefined };
}

/** Sends `count` POSTs through one keep-alive Pool, IN_FLIGHT at a time; returns requests per second. */
async function blast(origin: string, path: string, bodies: (i: number) => { body: string; headers: Record<string, string> }, count: number): Promise<{ perSecond: number; non2xx: number }> {
  const pool = new Pool(origin, { connections: IN_FLIGHT, pipelining: 1 });
  let next = 0;
  let non2xx = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      const { body, headers } = bodies(i);
      const res = await pool.request({ method: 'POST', path, body, headers });
      await res.body.dump();
      if (res.statusCode < 200 || res.statusCode >= 300) non2xx++;
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  return { perSecond: count / seconds, non2xx };
}

function notification(i: number): string {
  // Contiguous one-second intervals (RN-5), one entry each: parsed and ordered by the subscriber
  // after its answer; the entry points at a URI that is never fetched before the run ends.
  const t = (n: number) => new Date(Date.UTC(2030, 0, 1) + n * 1000).toISOString().replace('.000Z', 'Z');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"><rs:md capability="change-notification" from="${t(i)}" until="${t(i + 1)}"/><url><loc>http://127.0.0.1:9/bench/r${i % 100}</loc><rs:md change="deleted" datetime="${t(i)}"/></url></urlset>`;
}

const intake: BenchScenario = {
  name: 'subscriber intake',
  async run(ctx) {
    const count = Math.max(500, Math.round(20_000 * ctx.scale));
    // Raw receiver: reads the body, answers 202.
    const raw = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.on('data', () => undefined);
      req.on('end', () => res.writeHead(202).end());
    });
    await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
    const rawOrigin = `http://127.0.0.1:${(raw.address() as AddressInfo).port}`;

    // The subscriber with a verified subscription (fake hub: only the verification is needed here).
    const hub = await startFakeHub();
    const sim = await startSourceSimulator({ seed: 1, initialResources: 5, hubUrl: hub.url });
    const w = ws(ctx, 'intake');
    const sub = await startSubscriber({ ...subscriberConfig(w, sim.wellKnownUrl, { baseline: 'none' }), logLevel: 'warn' });
    try {
      const active = await waitFor(() => hub.subscriptions.find((s) => s.state === 'active'), { what: 'verified subscription' });
      const callback = new URL(active.callback);
      const secret = active.secret!;
      const bodies = Array.from({ length: count }, (_, i) => notification(i));
      const signed = (i: number) => ({ body: bodies[i]!, headers: { 'content-type': 'application/xml', 'x-hub-signature': signatureHeader('sha256', secret, bodies[i]!) } });
      // Warm-up for both, then the measured runs.
      await blast(rawOrigin, '/callback', signed, 500);
      const rawResult = await blast(rawOrigin, '/callback', signed, count);
      const subResult = await blast(callback.origin, callback.pathname, (i) => signed(i), count);
      ctx.log(`intake: subscriber ${subResult.perSecond.toFixed(0)}/s (${subResult.non2xx} non-2xx), raw ${rawResult.perSecond.toFixed(0)}/s`);
      return [
        {
          scenario: 'subscriber intake',
          figure: 'signed notifications accepted/s (verify + SQLite commit, synchronous=FULL, before 202)',
          value: subResult.perSecond,
          unit: 'req/s',
          baseline: { label: 'raw node:http receiver, no work', value: rawResult.perSecond, unit: 'req/s' },
          ratio: subResult.perSecond / rawResult.perSecond,
          note: `${count} POSTs, ${IN_FLIGHT} in flight, same process and sender${subResult.non2xx ? `; ${subResult.non2xx} non-2xx` : ''}`,
        },
      ];
    } finally {
      await sub.close();
      await sim.close();
      await hub.close();
      raw.close();
    }
  },
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const latency: BenchScenario = {
  name: 'subscriber publish-to-file',
  async run(ctx) {
    const samples = Math.max(20, Math.round(200 * ctx.scale));
    const w = ws(ctx, 'latency');
    const hub = await startE2EHub({ dbFile: join(w.dir, 'hub.db') });
    const sim = await startSourceSimulator({ seed: 2, initialResources: 50 });
    const { token } = await hub.addSource('sim', [sim.topicPrefix]);
    sim.setHub(hub.url, token);
    const sub = await startSubscriber({ ...subscriberConfig(w, sim.wellKnownUrl), logLevel: 'warn' });
    try {
      await waitFor(async () => (await sub.status())[0]?.subscriptionState === 'active' && (await sub.status())[0]?.syncedUntil, { what: 'subscribed', timeoutMs: 30_000 });
      const times: number[] = [];
      const rawTimes: number[] = [];
      for (let i = 0; i < samples + 5; i++) {
        const before = sim.snapshot();
        const t0 = performance.now();
        await sim.changeBatch(1);
        const after = sim.snapshot();
        const changed = [...after].find(([uri, e]) => !before.get(uri)?.bytes.equals(e.bytes)) ?? [...before].find(([uri]) => !after.has(uri));
        if (!changed) continue;
        const [uri] = changed;
        const expected = after.get(uri)?.bytes;
        const path = uriToMirrorPath(w.mirrorDir, uri);
        for (;;) {
          const bytes = await readFile(path).catch(() => undefined);
          if (expected ? bytes?.equals(expected) : bytes === undefined) break;
          if (performance.now() - t0 > 10_000) throw new Error(`no file for ${uri} after 10 s`);
          await new Promise((r) => setTimeout(r, 1));
        }
        const dt = performance.now() - t0;
        if (i >= 5) times.push(dt); // the first few warm connections and caches
        if (expected) {
          const r0 = performance.now();
          const res = await request(uri);
          const body = Buffer.from(await res.body.arrayBuffer());
          await writeFile(join(w.dir, 'raw.bin'), body);
          rawTimes.push(performance.now() - r0);
        }
      }
      times.sort((a, b) => a - b);
      rawTimes.sort((a, b) => a - b);
      const p50 = percentile(times, 50);
      const p99 = percentile(times, 99);
      const raw50 = percentile(rawTimes, 50);
      const note = `${times.length} single-change notifications, one at a time, through the real hub`;
      ctx.log(`publish-to-file: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, raw GET+write p50 ${raw50.toFixed(2)} ms`);
      const rows: BenchRow[] = [
        { scenario: 'subscriber publish-to-file', figure: 'latency p50 (Source change -> hub -> subscriber -> file)', value: p50, unit: 'ms', baseline: { label: 'raw GET + write p50', value: raw50, unit: 'ms' }, ratio: p50 / raw50, note },
        { scenario: 'subscriber publish-to-file', figure: 'latency p99', value: p99, unit: 'ms', baseline: { label: 'raw GET + write p99', value: percentile(rawTimes, 99), unit: 'ms' }, ratio: p99 / percentile(rawTimes, 99), note },
      ];
      return rows;
    } finally {
      await sub.close();
      await sim.close();
      await hub.close();
    }
  },
};

export const scenarios: BenchScenario[] = [intake, latency];
export default intake;
