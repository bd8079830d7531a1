// Publish-to-file latency: the simulator makes one change and posts it to the real hub; the clock
// stops when the mirror file holds the new bytes (inotify sees the rename), with the time of each
// stage on the way (lib/publish-stages.ts). Baselines, after each sample and in this order: one
// plain GET of the same resource plus a file write, then the same GET written as the mirror must
// write a file (temporary file, fsync, rename). p50 per third of the samples gives the spread.
import { open, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { startSubscriber, uriToMirrorPath } from '@rsnotify/subscriber';
import { startSourceSimulator } from '../../src/source-simulator/index.js';
import { waitFor } from '../../src/harness/index.js';
import { startE2EHub, subscriberConfig } from '../../e2e/subscriber-helpers.js';
import type { BenchRow, BenchScenario } from '../types.js';
import { describeRange, percentile, spread } from '../lib/measure.js';
import { StageTracer } from '../lib/publish-stages.js';
import { benchWorkspace as ws } from '../lib/workspace.js';

/**
 * One GET of `uri` into `path`: a plain write, or with `durable` (a sample number) as the mirror
 * writes a file: a new temporary file, fsync, then rename over `path`. Returns milliseconds.
 */
async function rawGetAndWrite(uri: string, path: string, durable?: number): Promise<number> {
  const t0 = performance.now();
  const res = await request(uri);
  const body = Buffer.from(await res.body.arrayBuffer());
  if (durable === undefined) {
    await writeFile(path, body);
  } else {
    const tmp = `${path}.${durable}.tmp`;
    const handle = await open(tmp, 'wx');
    try {
      await handle.write(body);
      await handle.sync();
      await rename(tmp, path);
    } finally {
      await handle.close();
    }
  }
  return performance.now() - t0;
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
    const sub = await startSubscriber({
      ...subscriberConfig(w, sim.wellKnownUrl),
      logLevel: 'warn',
    });
    try {
      await waitFor(
        async () =>
          (await sub.status())[0]?.subscriptionState === 'active' &&
          (await sub.status())[0]?.syncedUntil,
        { what: 'subscribed', timeoutMs: 30_000 },
      );
      const times: number[] = [];
      const rawTimes: number[] = [];
      const durableTimes: number[] = [];
      const tracer = new StageTracer(hub.url);
      for (let i = 0; i < samples + 5; i++) {
        const before = sim.snapshot();
        const t0 = tracer.begin();
        await sim.changeBatch(1);
        const after = sim.snapshot();
        const changed =
          [...after].find(([uri, e]) => !before.get(uri)?.bytes.equals(e.bytes)) ??
          [...before].find(([uri]) => !after.has(uri));
        if (!changed) {
          tracer.end(false);
          continue;
        }
        const [uri] = changed;
        tracer.target(uri);
        const expected = after.get(uri)?.bytes;
        // Woken by inotify when the file is renamed into place (a 1 ms poll alone would add up to
        // a timer period to every sample).
        const inPlace = await tracer.waitForFile(
          uriToMirrorPath(w.mirrorDir, uri),
          expected,
          10_000,
        );
        tracer.end(i >= 5 && expected !== undefined);
        const dt = inPlace - t0;
        if (i >= 5) times.push(dt); // the first few warm connections and caches
        if (expected) {
          rawTimes.push(await rawGetAndWrite(uri, join(w.dir, 'raw.bin')));
          durableTimes.push(await rawGetAndWrite(uri, join(w.dir, 'durable.bin'), i));
        }
      }
      // The spread: p50 of each third of the samples (in the order taken, so drift shows).
      const thirds = (xs: number[]) =>
        [0, 1, 2].map((k) =>
          xs.slice(Math.floor((k * xs.length) / 3), Math.floor(((k + 1) * xs.length) / 3)),
        );
      const p50s = spread(thirds(times).map((t) => percentile(t, 50)));
      const raw50s = spread(thirds(rawTimes).map((t) => percentile(t, 50)));
      const durable50s = spread(thirds(durableTimes).map((t) => percentile(t, 50)));
      const p50 = percentile(times, 50);
      const p99 = percentile(times, 99);
      const raw50 = percentile(rawTimes, 50);
      const durable50 = percentile(durableTimes, 50);
      tracer.close();
      ctx.log(`publish-to-file, per stage (updates only):\n${tracer.table()}`);
      const note = `${times.length} single-change notifications, one at a time, through the real hub (hub, subscriber, Source in this process), each followed by its raw GET + write, then the same GET written durably`;
      ctx.log(
        `publish-to-file: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, raw GET+write p50 ${raw50.toFixed(2)} ms, durably ${durable50.toFixed(2)} ms`,
      );
      const rows: BenchRow[] = [
        {
          scenario: 'subscriber publish-to-file',
          figure: 'latency p50 (Source change -> hub -> subscriber -> file)',
          value: p50,
          unit: 'ms',
          range: `p50 per third: ${describeRange(p50s)}`,
          baseline: {
            label: 'raw GET + write p50',
            value: raw50,
            unit: 'ms',
            range: `p50 per third: ${describeRange(raw50s)}`,
          },
          ratio: p50 / raw50,
          target: 'p50 <= 3 ms',
          note,
        },
        {
          scenario: 'subscriber publish-to-file',
          figure: 'latency p99',
          value: p99,
          unit: 'ms',
          baseline: { label: 'raw GET + write p99', value: percentile(rawTimes, 99), unit: 'ms' },
          ratio: p99 / percentile(rawTimes, 99),
          note,
        },
        {
          scenario: 'subscriber publish-to-file',
          figure:
            'floor: the same GET + temp file + fsync + rename, p50 (a durable file, no hub, no inbox)',
          value: durable50,
          unit: 'ms',
          range: `p50 per third: ${describeRange(durable50s)}`,
          baseline: {
            label: 'raw GET + write p50',
            value: raw50,
            unit: 'ms',
            range: `p50 per third: ${describeRange(raw50s)}`,
          },
          ratio: durable50 / raw50,
          note: "what the mirror's own promise costs alone: the file is on disk before it is recorded as applied",
        },
      ];
      return rows;
    } finally {
      await sub.close();
      await sim.close();
      await hub.close();
    }
  },
};

export default latency;
