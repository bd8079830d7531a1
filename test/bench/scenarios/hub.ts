// Hub benchmarks, each figure next to a ceiling measured in the same run, interleaved with it
// (hub, raw, hub, raw ... three rounds; the median and min-max are printed):
//   (1) fan-out of notifications to 1, 10, 100 and 1,000 subscribers through the real hub
//       (deliveries/s, from first publish to last receipt), next to the raw-sender ceiling: a process
//       of its own (lib/raw-sender.ts) with the hub's Agent (same connections per origin), the same
//       bodies, headers and callback URLs, one POST in flight per callback, the best of a few
//       concurrency settings; publish-to-receipt latency p50/p99 (paced);
//   (2) accepted durable ResourceSync publishes per second (parse + SQLite commit before the 200),
//       next to the same POSTs answered by a bare node:http server in another process, best of
//       three concurrency settings each;
//   (3) the bound the publish path sets at 1 subscriber, where every delivery needs a publish: the
//       hub's publishes/s at the burst's concurrency, next to the 1-subscriber raw rounds;
//   (4) the floor hub (lib/floor-hub.ts), a fourth arm in the same rounds of (1) and (2): a hub that
//       only stores and forwards, so the most any hub could reach here next to the same ceilings;
//       and the checked floor, a fifth arm in both, which first checks the token and parses the
//       body (RT-5, RT-7): the most a hub that refuses malformed publishes could reach (at 1
//       subscriber every delivery needs a publish, so the check counts there).
// Hub, receivers (plain node:http, 4 ports = 4 origins) and raw sender are separate processes, so
// no party's CPU is charged to another; CPU/op is the measured process's own CPU time (from /proc)
// divided by the operations, peak RSS its VmHWM, reset before each measured run.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { request } from 'undici';
import type { BenchContext, BenchRow, BenchScenario } from '../types.js';
import {
  describeRange,
  describeSpread,
  interleave,
  percentile,
  pool,
  spread,
  warmUp,
} from '../lib/measure.js';
import {
  activeSubscriptions,
  CONNECTIONS_PER_ORIGIN,
  linkFor,
  notification,
  Receivers,
  ROUNDS,
  addBenchSource,
  startFloorHub,
  startHubChild,
  waitUntil,
  WARM_UP_ROUNDS,
  type HubChild,
} from '../lib/hub-processes.js';
import {
  BURST_PUBLISHES_IN_FLIGHT,
  BURST_SETTLE_MS,
  hubBurst,
  pacedLatency,
  publishRate,
  rawFanOut,
  RawSender,
  rawSettings,
  summary,
  type Measured,
  type PublishRate,
} from '../lib/hub-arms.js';
import {
  baseRow,
  floorFanOutRow,
  checkedFloorFanOutRow,
  coresBusy,
  floorPublishRow,
  checkedFloorPublishRow,
  oneSubscriberBound,
  plural,
  rawCeiling,
} from '../lib/hub-rows.js';

const FAN_OUT_TARGET: Record<number, string> = {
  1: 'ratio >= 0.6',
  10: 'ratio >= 0.6',
  100: 'ratio >= 0.8',
  1000: 'ratio >= 0.8',
};

/** A hub child on its own database with the bench Source added; `root`: the checkout it runs. */
async function startHub(
  tmpDir: string,
  name: string,
  root?: string,
): Promise<{ hub: HubChild; token: string }> {
  const dbFile = join(tmpDir, `${name}.db`);
  const token = await addBenchSource(dbFile);
  return { hub: await startHubChild(dbFile, root, name), token };
}

/** Subscribes every callback to `topic` and waits until `total` subscriptions are active. */
async function subscribe(
  hub: HubChild,
  topic: string,
  callbacks: string[],
  total: number,
): Promise<void> {
  await pool(callbacks.length, 16, async (i) => {
    const form = new URLSearchParams({
      'hub.mode': 'subscribe',
      'hub.topic': topic,
      'hub.callback': callbacks[i]!,
    }).toString();
    const res = await request(hub.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    await res.body.dump();
    if (res.statusCode !== 202) throw new Error(`subscribe answered ${res.statusCode}`);
  });
  await waitUntil(
    async () => (await activeSubscriptions(hub.url)) >= total,
    `${total} active subscriptions`,
  );
}

const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

const scenario: BenchScenario = {
  name: 'hub',
  async run(ctx: BenchContext): Promise<BenchRow[]> {
    const rows: BenchRow[] = [];
    const receivers = await Receivers.start();
    const raw = await RawSender.start();
    let hub: HubChild | undefined;
    let base: HubChild | undefined;
    let checkedFloor: Awaited<ReturnType<typeof startFloorHub>> | undefined;
    const floor = await startFloorHub(ctx.tmpDir);
    try {
      const started = await startHub(ctx.tmpDir, 'hub');
      hub = started.hub;
      const { token } = started;
      const h = hub;
      const checked = await startFloorHub(ctx.tmpDir, sha256Hex(token));
      checkedFloor = checked;
      // BENCH_HUB_BASE=<checkout>: that checkout's hub (e.g. a worktree of main) as a third arm.
      const baseRoot = process.env.BENCH_HUB_BASE;
      const b = baseRoot ? await startHub(ctx.tmpDir, 'base', baseRoot) : undefined;
      base = b?.hub;
      const body = notification(0);

      let subscribed = 0;
      // The 1-subscriber burst's figures, for the bound its publishes set (after the publish rounds).
      let oneSubscriber: { hub: Measured[]; raw: Measured[] } | undefined;
      // BENCH_HUB_SIZES=100,1000 limits the fan-out sizes (for profiling one stage); an empty
      // value runs the publish rounds alone.
      const sizes = (process.env.BENCH_HUB_SIZES ?? '1,10,100,1000')
        .split(',')
        .filter((size) => size.trim() !== '')
        .map(Number);
      for (const n of sizes) {
        const topic = `http://bench.test/fanout-${n}`;
        const callbacks = Array.from({ length: n }, (_, i) => receivers.url(i, `/s${n}/${i}`));
        subscribed += n;
        let t0 = performance.now();
        await subscribe(h, topic, callbacks, subscribed);
        ctx.log(
          `subscribed ${n} (requested and verified) in ${Math.round(performance.now() - t0)} ms`,
        );
        if (b) {
          t0 = performance.now();
          await subscribe(b.hub, topic, callbacks, subscribed);
          ctx.log(`  base: in ${Math.round(performance.now() - t0)} ms`);
        }
        await floor.subscribe(topic, callbacks);
        await checked.subscribe(topic, callbacks);
        // The hub sends the stored Link header verbatim: the raw sender sends the same one.
        const headers = { 'content-type': 'application/xml', link: linkFor(topic, h.url) };
        const deliveries = Math.round((n === 1 ? 2_000 : 20_000) * ctx.scale);
        const perCallback = Math.max(5, Math.round(deliveries / n));
        const arms = {
          hub: () => hubBurst(h, token, receivers, topic, n, perCallback),
          ...(b ? { base: () => hubBurst(b.hub, b.token, receivers, topic, n, perCallback) } : {}),
          raw: () => rawFanOut(raw, receivers, callbacks, perCallback, body, headers),
          floor: () => hubBurst(floor, '', receivers, topic, n, perCallback),
          checked: () => hubBurst(checked, token, receivers, topic, n, perCallback),
        } as Record<'hub' | 'base' | 'raw' | 'floor' | 'checked', () => Promise<Measured>>;
        // Not counted: every arm's JIT tiers up, its connections open (measure.ts warmUp).
        ctx.log(
          `fan-out to ${n}: ${WARM_UP_ROUNDS} warm-up rounds, then ${ROUNDS} interleaved rounds`,
        );
        await warmUp(WARM_UP_ROUNDS, arms);
        const r = await interleave(ROUNDS, arms);
        const hs = summary(r.hub);
        const rs = summary(r.raw);
        if (n === 1) oneSubscriber = { hub: r.hub, raw: r.raw };
        const ratios = spread(r.hub.map((m, i) => m.perSecond / r.raw[i]!.perSecond));
        ctx.log(
          `  hub ${describeSpread(hs.rate)}/s, raw ${describeSpread(rs.rate)}/s, floor ${describeSpread(summary(r.floor).rate)}/s, checked floor ${describeSpread(summary(r.checked).rate)}/s, ratio ${describeSpread(ratios)}; CPU µs/delivery hub ${hs.cpu.toFixed(1)}, raw ${rs.cpu.toFixed(1)}; hub wrote ${hs.writtenKiB.toFixed(2)} KiB/delivery`,
        );
        if (b) {
          rows.push(baseRow(n, summary(r.base), rs, r.base, r.raw));
          // Paired per round (the two hubs ran next to each other): steadier than either median.
          const rate = spread(r.hub.map((m, i) => m.perSecond / r.base[i]!.perSecond));
          const cpu = spread(r.hub.map((m, i) => m.cpuUsPerOp / r.base[i]!.cpuUsPerOp));
          ctx.log(
            `  this hub / base, per round: deliveries/s ${describeSpread(rate)}, CPU per delivery ${describeSpread(cpu)}`,
          );
        }
        const samples = Math.max(
          10,
          Math.round((n === 1 ? 500 : n === 10 ? 300 : n === 100 ? 100 : 30) * ctx.scale),
        );
        const latencies = await pacedLatency(h, token, receivers, topic, n, samples);
        rows.push({
          scenario: 'hub fan-out',
          figure: `deliveries/s to ${plural(n)} (burst)`,
          value: hs.rate.median,
          unit: 'deliveries/s',
          range: describeRange(hs.rate),
          cpuUsPerOp: hs.cpu,
          peakRssMiB: hs.rss,
          baseline: rawCeiling(rs),
          ratio: hs.rate.median / rs.rate.median,
          target: FAN_OUT_TARGET[n],
          note:
            `${perCallback * n} deliveries a round, after ${WARM_UP_ROUNDS} warm-up rounds of every arm; publish -> durable store -> scheduler -> POST, first publish to last receipt (CPU and writes metered until ${BURST_SETTLE_MS} ms after it, past the cursor batch); ` +
            `per-round ratios ${describeSpread(ratios)}; raw: ${CONNECTIONS_PER_ORIGIN} connections per origin like the hub's pool, ` +
            `one POST in flight per callback, best of concurrency ${rawSettings(n).join('/')} (won: ${r.raw.map((m) => m.concurrency).join(',')}); ` +
            `the hub wrote ${hs.writtenKiB.toFixed(2)} KiB per delivery to storage (/proc/<pid>/io); ` +
            `cores kept busy (rate x CPU per delivery, per round): the hub ${coresBusy(r.hub)}, the raw sender ${coresBusy(r.raw)}`,
        });
        rows.push({
          scenario: 'hub fan-out',
          figure: `publish-to-receipt p50, ${plural(n)} (paced)`,
          value: percentile(latencies, 50),
          unit: 'ms',
          target: n === 1 ? 'p50 < 5 ms' : undefined,
          note: `${latencies.length} deliveries; publish request start -> receiver has the body`,
        });
        rows.push({
          scenario: 'hub fan-out',
          figure: `publish-to-receipt p99, ${plural(n)} (paced)`,
          value: percentile(latencies, 99),
          unit: 'ms',
        });
        rows.push(floorFanOutRow(n, r.floor, r.raw));
        rows.push(checkedFloorFanOutRow(n, r.checked, r.raw, r.hub));
      }

      if (process.env.BENCH_HUB_SKIP_PUBLISH) return rows;
      ctx.log(`publish rate: a warm-up round, then ${ROUNDS} interleaved rounds`);
      const total = Math.round(10_000 * ctx.scale);
      const settings = [BURST_PUBLISHES_IN_FLIGHT, 32, 64];
      const bare = receivers.url(0, '/bare');
      const publishArms = {
        hub: () => publishRate('hub', h.url, h.child.pid!, token, h.url, total, settings),
        bare: () => publishRate('bare', bare, receivers.pid, token, h.url, total, settings),
        floor: () => publishRate('floor', floor.url, floor.child.pid!, '', h.url, total, settings),
        checked: () =>
          publishRate('checked', checked.url, checked.child.pid!, token, h.url, total, settings),
        ...(b
          ? {
              base: () =>
                publishRate(
                  'base',
                  b.hub.url,
                  b.hub.child.pid!,
                  b.token,
                  b.hub.url,
                  total,
                  settings,
                ),
            }
          : {}),
      } as Record<'hub' | 'bare' | 'base' | 'floor' | 'checked', () => Promise<PublishRate>>;
      // One round of 3 x 10,000 publishes is warm-up enough even with no fan-out before it.
      await warmUp(1, publishArms);
      const p = await interleave(ROUNDS, publishArms);
      const ph = summary(p.hub);
      const pb = summary(p.bare);
      if (b) {
        const rate = spread(p.hub.map((m, i) => m.perSecond / p.base[i]!.perSecond));
        const cpu = spread(p.hub.map((m, i) => m.cpuUsPerOp / p.base[i]!.cpuUsPerOp));
        ctx.log(
          `  publishes, this hub / base, per round: rate ${describeSpread(rate)}, CPU per publish ${describeSpread(cpu)} (base ${summary(p.base).cpu.toFixed(0)} µs)`,
        );
      }
      rows.push({
        scenario: 'hub publish',
        figure: 'accepted durable ResourceSync publishes/s (parse + SQLite commit before 200)',
        value: ph.rate.median,
        unit: 'publishes/s',
        range: describeRange(ph.rate),
        cpuUsPerOp: ph.cpu,
        peakRssMiB: ph.rss,
        baseline: {
          label: 'same POSTs to a bare node:http server (own process)',
          value: pb.rate.median,
          unit: 'req/s',
          range: describeRange(pb.rate),
          cpuUsPerOp: pb.cpu,
        },
        ratio: ph.rate.median / pb.rate.median,
        target: 'ratio >= 0.5',
        note:
          `${total} POSTs a round, best of ${settings.join('/')} in flight (won: hub ${p.hub.map((m) => m.concurrency).join(',')}; bare ${p.bare.map((m) => m.concurrency).join(',')}); ` +
          `token checked, WAL synchronous=NORMAL; the hub wrote ${ph.writtenKiB.toFixed(1)} KiB per publish to storage (/proc/<pid>/io)`,
      });
      rows.push(floorPublishRow(p.floor, p.bare));
      rows.push(checkedFloorPublishRow(p.checked, p.bare, p.hub));
      if (oneSubscriber) rows.push(oneSubscriberBound(p.hub, oneSubscriber));
      return rows;
    } finally {
      await hub?.stop();
      await floor.stop();
      await checkedFloor?.stop();
      await base?.stop();
      raw.stop();
      receivers.stop();
    }
  },
};

export default scenario;
