// Subscriber benchmarks, each with its raw baseline measured in the same run:
// 1. Notification intake: signed change notifications POSTed straight to a verified callback (the
//    subscriber checks the signature, commits the raw body to SQLite with synchronous=FULL, answers
//    202, then parses and orders it), next to a raw node:http receiver that reads the body and answers
//    202 doing nothing else. Each runs in a process of its own (lib/intake-child.ts for the
//    subscriber); the driver sends the same signed POSTs to both, interleaved (sub, raw, sub, raw ...,
//    three rounds), best of two concurrency settings each; CPU/op and peak RSS are the receiving
//    process's own.
// 2. Publish-to-file latency: the simulator makes one change and posts it to the real hub; the clock
//    stops when the mirror file holds the new bytes. Baseline: one plain GET of the same resource plus
//    a file write, alternating with the measured path; p50 per third of the samples gives the spread.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Pool, request } from 'undici';
import { signatureHeader } from '@rsnotify/shared';
import { startSubscriber, uriToMirrorPath } from '@rsnotify/subscriber';
import { startSourceSimulator } from '../../src/source-simulator/index.js';
import { waitFor } from '../../src/harness/index.js';
import { startE2EHub, subscriberConfig, type Workspace } from '../../e2e/subscriber-helpers.js';
import type { BenchContext, BenchRow, BenchScenario } from '../types.js';
import { describeRange, interleave, metered, profileArgs, spread } from '../lib/measure.js';
import { StageTracer } from '../lib/publish-stages.js';
import { ensureBuilt, repoRoot } from '../lib/hub-processes.js';

const IN_FLIGHT_SETTINGS = [16, 64];
const ROUNDS = Number(process.env.BENCH_ROUNDS) || 3; // BENCH_ROUNDS: more rounds for an A/B

function ws(ctx: BenchContext, name: string): Workspace {
  const dir = join(ctx.tmpDir, name);
  return {
    dir,
    dataDir: join(dir, 'data'),
    mirrorDir: join(dir, 'mirror'),
    remove: async () => undefined,
  };
}

/** Sends `count` POSTs through one keep-alive Pool, `inFlight` at a time; returns requests per second. */
async function blast(
  origin: string,
  path: string,
  bodies: (i: number) => { body: string; headers: Record<string, string> },
  count: number,
  inFlight: number,
): Promise<{ perSecond: number; non2xx: number }> {
  const pool = new Pool(origin, { connections: inFlight, pipelining: 1 });
  let next = 0;
  let non2xx = 0;
  let firstBad: number | undefined;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      const { body, headers } = bodies(i);
      const res = await pool.request({ method: 'POST', path, body, headers });
      await res.body.dump();
      if (res.statusCode < 200 || res.statusCode >= 300) {
        non2xx++;
        firstBad ??= res.statusCode;
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  if (firstBad !== undefined)
    process.stderr.write(`  ${origin}: ${non2xx} non-2xx, first ${firstBad}\n`);
  return { perSecond: count / seconds, non2xx };
}

// Raw on purpose: the payload's bytes are part of the recorded bench baselines.
function notification(i: number): string {
  // Contiguous one-second intervals (RN-5), one entry each: parsed and ordered by the subscriber
  // after its answer; the entry points at a URI that is never fetched before the run ends.
  const t = (n: number) =>
    new Date(Date.UTC(2030, 0, 1) + n * 1000).toISOString().replace('.000Z', 'Z');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"><rs:md capability="change-notification" from="${t(i)}" until="${t(i + 1)}"/><url><loc>http://127.0.0.1:9/bench/r${i % 100}</loc><rs:md change="deleted" datetime="${t(i)}"/></url></urlset>`;
}

// The raw receiver (child process, plain JavaScript): reads the body, answers 202.
const RAW_RECEIVER_JS = String.raw`
import { createServer } from 'node:http';
const s = createServer((req, res) => { req.on('data', () => undefined); req.on('end', () => res.writeHead(202).end()); });
s.keepAliveTimeout = 60000;
s.listen(0, '127.0.0.1', () => process.send({ origin: 'http://127.0.0.1:' + s.address().port }));
`;

async function child(
  args: string[],
  env: Record<string, string>,
  cwd = repoRoot,
): Promise<{ child: ChildProcess; info: Record<string, string> }> {
  const c = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const info = await new Promise<Record<string, string>>((resolve, reject) => {
    c.once('message', (m) => resolve(m as Record<string, string>));
    c.once('exit', (code) => reject(new Error(`bench child exited ${code}`)));
  });
  return { child: c, info };
}

async function stopChild(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null) return;
  const exited = new Promise((r) => c.once('exit', r));
  c.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
  if (c.exitCode === null) c.kill('SIGKILL');
}

interface IntakeRun {
  perSecond: number;
  /** Notifications received and applied per second, until nothing was left to apply. */
  appliedPerSecond?: number;
  cpuUsPerOp: number;
  peakRssMiB: number;
  /** Bytes the receiving process sent towards storage per POST (KiB). */
  writtenKiBPerOp: number;
  non2xx: number;
  inFlight: number;
}

/** Asks an intake child to answer once everything it accepted is applied (lib/intake-child.ts). */
function drained(c: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    const on = (m: { drained?: boolean }): void => {
      if (!m.drained) return;
      c.off('message', on);
      resolve();
    };
    c.on('message', on);
    c.send({ cmd: 'drain' });
  });
}

/** One subscriber under the intake bench: its own process, secret and contiguous sequence. */
interface IntakeTarget {
  readonly child: ChildProcess;
  readonly callback: URL;
  readonly signatures: string[];
  /** The child answers `drain` (a checkout from before it does not: metered over the burst only). */
  readonly drains: boolean;
  next: number;
}

// The subscriber runs from its build (no @rsnotify/source condition: its package resolves to dist,
// see ensureBuilt); only the child's own rig (fake hub, Source simulator) goes through tsx.
const subscriberChildArgs = (name: string): string[] => [
  ...profileArgs(name),
  '--import',
  'tsx',
  'test/bench/lib/intake-child.ts',
];

const intake: BenchScenario = {
  name: 'subscriber intake',
  async run(ctx) {
    const count = Math.max(500, Math.round(10_000 * ctx.scale));
    const bodies = Array.from(
      { length: count * (ROUNDS * IN_FLIGHT_SETTINGS.length + 1) },
      (_, i) => notification(i),
    );
    // BENCH_INTAKE_AB=<dir>: a second subscriber started from another checkout of the repository
    // (e.g. the code before a change, with its node_modules), measured in the same rounds.
    const abDir = process.env.BENCH_INTAKE_AB;
    const raw = await child(['--input-type=module', '-e', RAW_RECEIVER_JS], {});
    const started: { child: ChildProcess; info: Record<string, string> }[] = [];
    const targets = new Map<string, IntakeTarget>();
    const startSubscriberChild = async (name: string, cwd?: string): Promise<void> => {
      ensureBuilt(cwd ?? repoRoot);
      const c = await child(
        subscriberChildArgs(name),
        { WORK_DIR: join(ctx.tmpDir, `intake-${name}`) },
        cwd,
      );
      started.push(c);
      const secret = c.info.secret!;
      targets.set(name, {
        child: c.child,
        callback: new URL(c.info.callback!),
        signatures: bodies.map((b) => signatureHeader('sha256', secret, b)),
        drains: c.info.drain === 'yes',
        next: 0,
      });
    };
    try {
      await startSubscriberChild('subscriber');
      if (abDir) await startSubscriberChild('subscriber-ab', abDir);
      // Each POST to a subscriber carries the next interval of its own sequence (RN-5), so none is
      // a duplicate and there is no gap (a gap would make the subscriber buffer and catch up).
      const signed = (t: IntakeTarget, base: number) => (i: number) => ({
        body: bodies[base + i]!,
        headers: { 'content-type': 'application/xml', 'x-hub-signature': t.signatures[base + i]! },
      });
      // A subscriber's CPU is metered until it has applied the burst too (what it accepted it must
      // apply, and work left over would fall into the next arm's window); accepted/s is the burst's.
      const measure = async (
        pid: number,
        send: (n: number, inFlight: number) => ReturnType<typeof blast>,
        drain?: () => Promise<void>,
      ): Promise<IntakeRun> => {
        let best: IntakeRun | undefined;
        for (const inFlight of IN_FLIGHT_SETTINGS) {
          const m = await metered(pid, async () => {
            const started = performance.now();
            const sent = await send(count, inFlight);
            if (!drain) return { ...sent, appliedPerSecond: undefined };
            await drain();
            return { ...sent, appliedPerSecond: count / ((performance.now() - started) / 1000) };
          });
          const run = {
            perSecond: m.value.perSecond,
            appliedPerSecond: m.value.appliedPerSecond,
            non2xx: m.value.non2xx,
            cpuUsPerOp: (m.cpuMs * 1000) / count,
            peakRssMiB: m.peakRssMiB,
            writtenKiBPerOp: m.writtenBytes / 1024 / count,
            inFlight,
          };
          if (!best || run.perSecond > best.perSecond) best = run;
        }
        return best!;
      };
      const measureTarget = (t: IntakeTarget) => () =>
        measure(
          t.child.pid!,
          (n, inFlight) => {
            const base = t.next;
            t.next += n;
            return blast(t.callback.origin, t.callback.pathname, signed(t, base), n, inFlight);
          },
          t.drains ? () => drained(t.child) : undefined,
        );
      // Warm-up for all.
      const rawOrigin = raw.info.origin!;
      // The raw receiver gets the same requests (headers included) as the measured subscriber.
      const rawSigned = signed(targets.get('subscriber')!, 0);
      await blast(rawOrigin, '/callback', rawSigned, 500, 64);
      const warmUp = Math.min(500, count);
      for (const t of targets.values()) {
        await blast(t.callback.origin, t.callback.pathname, signed(t, 0), warmUp, 64);
        t.next = warmUp;
      }
      const arms: Record<string, () => Promise<IntakeRun>> = {};
      for (const [name, t] of targets) arms[name] = measureTarget(t);
      arms.raw = () =>
        measure(raw.child.pid!, (n, inFlight) =>
          blast(rawOrigin, '/callback', rawSigned, n, inFlight),
        );
      const r = await interleave(ROUNDS, arms);
      const rows: BenchRow[] = [];
      const b = spread(r.raw!.map((x) => x.perSecond));
      for (const name of targets.keys()) {
        const runs = r[name]!;
        const s = spread(runs.map((x) => x.perSecond));
        const non2xx = runs.reduce((a, x) => a + x.non2xx, 0);
        const cpu = spread(runs.map((x) => x.cpuUsPerOp)).median;
        const written = spread(runs.map((x) => x.writtenKiBPerOp)).median;
        ctx.log(
          `  peak RSS per round (MiB): ${runs.map((x) => x.peakRssMiB.toFixed(0)).join(', ')}`,
        );
        ctx.log(
          `intake (${name}): ${s.median.toFixed(0)}/s, ${cpu.toFixed(0)} µs CPU/notification, ${written.toFixed(1)} KiB written/notification (${non2xx} non-2xx), raw ${b.median.toFixed(0)}/s`,
        );
        rows.push({
          scenario: 'subscriber intake',
          figure:
            name === 'subscriber'
              ? 'signed notifications accepted/s (verify + SQLite commit, durable on disk, before 202)'
              : `same, A/B arm from ${abDir}`,
          value: s.median,
          unit: 'req/s',
          range: describeRange(s),
          cpuUsPerOp: cpu,
          peakRssMiB: Math.max(...runs.map((x) => x.peakRssMiB)),
          baseline: {
            label: 'raw node:http receiver, no work (own process)',
            value: b.median,
            unit: 'req/s',
            range: describeRange(b),
            cpuUsPerOp: spread(r.raw!.map((x) => x.cpuUsPerOp)).median,
          },
          ratio: s.median / b.median,
          target: 'ratio >= 0.7',
          note:
            `${count} POSTs a round, best of ${IN_FLIGHT_SETTINGS.join('/')} in flight (won: ${runs.map((x) => x.inFlight).join(',')}; raw ${r.raw!.map((x) => x.inFlight).join(',')}); ` +
            `per-round ratios ${describeRange(spread(runs.map((x, i) => x.perSecond / r.raw![i]!.perSecond)))}${non2xx ? `; ${non2xx} non-2xx` : ''}; ` +
            (targets.get(name)!.drains
              ? 'CPU/op: receiving and applying each notification, metered until the burst was applied'
              : 'CPU/op: metered over the burst only (this checkout cannot report when it has applied)') +
            `; ${written.toFixed(1)} KiB written to storage per notification (WAL and checkpoints, /proc/<pid>/io)`,
        });
        const applied = runs.map((x) => x.appliedPerSecond).filter((x) => x !== undefined);
        if (applied.length > 0) {
          const a = spread(applied);
          rows.push({
            scenario: 'subscriber intake',
            figure: `${name === 'subscriber' ? '' : 'A/B arm: '}notifications received and applied/s (first POST until nothing is left to apply)`,
            value: a.median,
            unit: 'notifications/s',
            range: describeRange(a),
            cpuUsPerOp: cpu,
            note: 'the same bursts; each notification deletes one of 100 resources the mirror does not hold (its event, inbox state and position are written)',
          });
        }
      }
      return rows;
    } finally {
      for (const c of started) await stopChild(c.child);
      await stopChild(raw.child);
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
          const r0 = performance.now();
          const res = await request(uri);
          const body = Buffer.from(await res.body.arrayBuffer());
          await writeFile(join(w.dir, 'raw.bin'), body);
          rawTimes.push(performance.now() - r0);
        }
      }
      // The spread: p50 of each third of the samples (in the order taken, so drift shows).
      const thirds = (xs: number[]) =>
        [0, 1, 2].map((k) =>
          xs.slice(Math.floor((k * xs.length) / 3), Math.floor(((k + 1) * xs.length) / 3)),
        );
      const p50s = spread(
        thirds(times).map((t) =>
          percentile(
            [...t].sort((a, b) => a - b),
            50,
          ),
        ),
      );
      const raw50s = spread(
        thirds(rawTimes).map((t) =>
          percentile(
            [...t].sort((a, b) => a - b),
            50,
          ),
        ),
      );
      times.sort((a, b) => a - b);
      rawTimes.sort((a, b) => a - b);
      const p50 = percentile(times, 50);
      const p99 = percentile(times, 99);
      const raw50 = percentile(rawTimes, 50);
      tracer.close();
      ctx.log(`publish-to-file, per stage (updates only):\n${tracer.table()}`);
      const note = `${times.length} single-change notifications, one at a time, through the real hub (hub, subscriber, Source in this process), each followed by its raw GET + write`;
      ctx.log(
        `publish-to-file: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, raw GET+write p50 ${raw50.toFixed(2)} ms`,
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
