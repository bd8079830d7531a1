// Hub benchmarks, each figure next to a ceiling measured in the same run, interleaved with it
// (hub, raw, hub, raw ... three rounds; the median and min-max are printed):
//   (1) fan-out of notifications to 1, 10, 100 and 1,000 subscribers through the real hub
//       (deliveries/s, from first publish to last receipt), next to the raw-sender ceiling: a process
//       of its own (lib/raw-sender.ts) with the hub's Agent (same connections per origin), the same
//       bodies, headers and callback URLs, one POST in flight per callback, the best of a few
//       concurrency settings; publish-to-receipt latency p50/p99 (paced);
//   (2) accepted durable ResourceSync publishes per second (parse + SQLite commit before the 200),
//       next to the same POSTs answered by a bare node:http server in another process, best of two
//       concurrency settings each.
// Hub, receivers (plain node:http, 4 ports = 4 origins) and raw sender are separate processes, so
// no party's CPU is charged to another; CPU/op is the measured process's own CPU time (from /proc)
// divided by the operations, peak RSS its VmHWM, reset before each measured run.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import type { BenchContext, BenchRow, BenchScenario } from '../types.js';
import {
  describeRange,
  describeSpread,
  interleave,
  metered,
  percentile,
  pool,
  profileArgs,
  spread,
} from '../lib/measure.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const RECEIVER_PORTS = 4;
const CONNECTIONS_PER_ORIGIN = 16; // the hub's default; the raw ceiling uses the same
const HUB_IN_FLIGHT = 256; // the hub's default --max-in-flight
const ROUNDS = 3;

// The receivers (child process, plain JavaScript): echo verification challenges, count deliveries,
// optionally record (tag, receipt time) pairs, and report when a count is reached.
const RECEIVER_JS = String.raw`
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
const ports = Number(process.env.PORTS);
let count = 0;
let recording = false;
let records = [];
let expect = undefined;
const TAG = /tag-(\d+)-/;
function handle(req, res) {
  if (req.method === 'GET') {
    const q = new URL(req.url, 'http://x').searchParams;
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(q.get('hub.challenge') ?? '');
    return;
  }
  const chunks = recording ? [] : undefined;
  req.on('data', (c) => { if (chunks) chunks.push(c); });
  req.on('end', () => {
    count++;
    if (chunks) {
      const m = TAG.exec(Buffer.concat(chunks).toString('latin1'));
      records.push(m ? Number(m[1]) : -1, performance.timeOrigin + performance.now());
    }
    res.writeHead(200, { 'content-length': '0' });
    res.end();
    if (expect !== undefined && count >= expect) { expect = undefined; process.send({ reached: count, at: performance.timeOrigin + performance.now() }); }
  });
}
const servers = [];
for (let i = 0; i < ports; i++) {
  const s = createServer(handle);
  s.keepAliveTimeout = 60000;
  servers.push(new Promise((r) => s.listen(0, '127.0.0.1', () => r(s.address().port))));
}
Promise.all(servers).then((list) => process.send({ ports: list }));
process.on('message', (m) => {
  if (m.cmd === 'reset') { count = 0; records = []; recording = !!m.record; expect = undefined; process.send({ ok: true }); }
  else if (m.cmd === 'expect') { if (count >= m.n) process.send({ reached: count, at: performance.timeOrigin + performance.now() }); else expect = m.n; }
  else if (m.cmd === 'records') process.send({ records, count });
  else if (m.cmd === 'stop') process.exit(0);
});
`;

const now = () => performance.timeOrigin + performance.now();

class Receivers {
  private waiting: ((m: Record<string, unknown>) => void)[] = [];
  private constructor(
    private readonly child: ChildProcess,
    readonly ports: number[],
  ) {
    child.on('message', (m: Record<string, unknown>) => this.waiting.shift()?.(m));
  }

  static async start(): Promise<Receivers> {
    const child = spawn(process.execPath, ['--input-type=module', '-e', RECEIVER_JS], {
      env: { ...process.env, PORTS: String(RECEIVER_PORTS) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const first = await new Promise<{ ports: number[] }>((resolve, reject) => {
      child.once('message', (m) => resolve(m as { ports: number[] }));
      child.once('exit', (code) => reject(new Error(`receivers exited ${code}`)));
    });
    return new Receivers(child, first.ports);
  }

  private ask(m: Record<string, unknown>): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.child.send(m);
    });
  }

  async reset(record = false): Promise<void> {
    await this.ask({ cmd: 'reset', record });
  }
  /** Resolves with the receivers' clock when `n` requests have arrived since the last reset. */
  async reached(n: number): Promise<number> {
    return (await this.ask({ cmd: 'expect', n })).at as number;
  }
  async records(): Promise<{ tag: number; at: number }[]> {
    const flat = (await this.ask({ cmd: 'records' })).records as number[];
    const out: { tag: number; at: number }[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ tag: flat[i]!, at: flat[i + 1]! });
    return out;
  }

  url(i: number, path: string): string {
    return `http://127.0.0.1:${this.ports[i % this.ports.length]}${path}`;
  }

  get pid(): number {
    return this.child.pid!;
  }

  stop(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

interface HubChild {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

function runCli(args: string[]): Promise<string[]> {
  const child = spawn(
    process.execPath,
    ['--conditions=@rsnotify/source', '--import', 'tsx', 'hub/src/cli.ts', ...args],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const lines: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (l) => lines.push(l));
  return new Promise((resolve) => child.on('exit', () => resolve(lines)));
}

async function startHubChild(dbFile: string): Promise<HubChild> {
  const child = spawn(
    process.execPath,
    [
      ...profileArgs('hub'),
      '--conditions=@rsnotify/source',
      '--import',
      'tsx',
      'hub/src/cli.ts',
      'serve',
      '--port',
      '0',
      '--db',
      dbFile,
      '--allow-private-networks',
      '--no-check-topics',
      '--log-level',
      'info',
      '--max-in-flight',
      String(HUB_IN_FLIGHT),
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.includes('"hub.listening"'))
        resolve(String((JSON.parse(line) as { url: string }).url));
    });
    child.once('exit', (code) => reject(new Error(`hub exited ${code}`)));
  });
  return {
    child,
    url,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

function notification(tag: number, entries = 5): Buffer {
  const urls = Array.from(
    { length: entries },
    (_, i) =>
      `<url><loc>http://bench.test/res/tag-${tag}-/${i}</loc><rs:md change="updated" datetime="2026-01-01T00:00:00.${String(i).padStart(3, '0')}Z" hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6" length="8876" type="text/html"/></url>`,
  ).join('\n');
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="http://bench.test/capabilitylist.xml"/>
<rs:md capability="change-notification" from="2026-01-01T00:00:00Z" until="2026-01-01T00:00:01Z"/>
${urls}
</urlset>
`);
}

const linkFor = (topic: string, hub: string) =>
  `<${topic}>; rel="self", <${hub}>; rel="hub", <http://bench.test/capabilitylist.xml>; rel="resourcesync"`;

async function activeSubscriptions(hubUrl: string): Promise<number> {
  const res = await request(new URL('/metrics', hubUrl).href);
  const m = /rsnotify_hub_subscriptions\{state="active"\} (\d+)/.exec(await res.body.text());
  return m ? Number(m[1]) : 0;
}

async function waitUntil(
  probe: () => Promise<boolean>,
  what: string,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The raw sender process (lib/raw-sender.ts), driven over IPC. */
class RawSender {
  private waiting: ((m: Record<string, unknown>) => void)[] = [];
  private constructor(private readonly child: ChildProcess) {
    child.on('message', (m: Record<string, unknown>) => this.waiting.shift()?.(m));
  }

  static async start(): Promise<RawSender> {
    const child = spawn(
      process.execPath,
      ['--conditions=@rsnotify/source', '--import', 'tsx', 'test/bench/lib/raw-sender.ts'],
      {
        cwd: repoRoot,
        env: { ...process.env, CONNECTIONS: String(CONNECTIONS_PER_ORIGIN) },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      },
    );
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`raw sender exited ${code}`)));
    });
    return new RawSender(child);
  }

  get pid(): number {
    return this.child.pid!;
  }

  async run(
    callbacks: string[],
    perCallback: number,
    concurrency: number,
    headers: Record<string, string>,
    body: Buffer,
  ): Promise<void> {
    const reply = await new Promise<Record<string, unknown>>((resolve) => {
      this.waiting.push(resolve);
      this.child.send({
        cmd: 'run',
        callbacks,
        perCallback,
        concurrency,
        headers,
        body: body.toString('latin1'),
      });
    });
    if (reply.error)
      throw new Error(
        `raw sender: ${typeof reply.error === 'string' ? reply.error : JSON.stringify(reply.error)}`,
      );
  }

  stop(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

interface Measured {
  perSecond: number;
  cpuUsPerOp: number;
  peakRssMiB: number;
  concurrency?: number;
}

/** Concurrency settings the raw sender tries for `n` callbacks (at most one in flight per callback). */
function rawSettings(n: number): number[] {
  // 16 in flight never won beyond 64 callbacks: left out there to keep the run short.
  return [
    ...new Set(
      [16, 64, HUB_IN_FLIGHT, 1024].filter((c) => n <= 64 || c > 16).map((c) => Math.min(c, n)),
    ),
  ];
}

/**
 * The ceiling for `n` subscribers: the raw sender POSTs the same body with the same headers the hub
 * sends (Content-Type and the stored Link header, no signature: the bench subscriptions have no
 * secret) to the same callbacks, `perCallback` each, and the best concurrency setting counts.
 */
async function rawFanOut(
  raw: RawSender,
  receivers: Receivers,
  callbacks: string[],
  perCallback: number,
  body: Buffer,
  headers: Record<string, string>,
): Promise<Measured & { concurrency: number }> {
  let best: (Measured & { concurrency: number }) | undefined;
  const total = callbacks.length * perCallback;
  for (const c of rawSettings(callbacks.length)) {
    await receivers.reset();
    const m = await metered(raw.pid, async () => {
      const started = now();
      const done = receivers.reached(total);
      await raw.run(callbacks, perCallback, c, headers, body);
      return total / (((await done) - started) / 1000);
    });
    if (!best || m.value > best.perSecond)
      best = {
        perSecond: m.value,
        cpuUsPerOp: (m.cpuMs * 1000) / total,
        peakRssMiB: m.peakRssMiB,
        concurrency: c,
      };
  }
  return best!;
}

function publisher(hubUrl: string, token: string, topic: string, concurrency: number) {
  const agent = new Agent({ connections: concurrency, pipelining: 1 });
  const headers = {
    'content-type': 'application/xml',
    link: linkFor(topic, hubUrl),
    authorization: `Bearer ${token}`,
  };
  return {
    async post(body: Buffer): Promise<void> {
      const res = await request(hubUrl, { method: 'POST', headers, body, dispatcher: agent });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`publish answered ${res.statusCode}`);
    },
    close: () => agent.close(),
  };
}

/** Hub burst: `notifications` publishes (8 in flight) fanned out to `n` subscribers; until the last receipt. */
async function hubBurst(
  hub: HubChild,
  token: string,
  receivers: Receivers,
  topic: string,
  n: number,
  notifications: number,
): Promise<Measured> {
  const pub = publisher(hub.url, token, topic, 8);
  const bodies = Array.from({ length: notifications }, (_, i) => notification(i));
  const total = notifications * n;
  try {
    await receivers.reset();
    const m = await metered(hub.child.pid!, async () => {
      const started = now();
      const done = receivers.reached(total);
      await pool(notifications, 8, (i) => pub.post(bodies[i]!));
      return total / (((await done) - started) / 1000);
    });
    return { perSecond: m.value, cpuUsPerOp: (m.cpuMs * 1000) / total, peakRssMiB: m.peakRssMiB };
  } finally {
    await pub.close();
  }
}

/** Paced: one notification at a time, each after the previous fan-out landed, receipt times recorded. */
async function pacedLatency(
  hub: HubChild,
  token: string,
  receivers: Receivers,
  topic: string,
  n: number,
  samples: number,
): Promise<number[]> {
  const pub = publisher(hub.url, token, topic, 1);
  try {
    await receivers.reset(true);
    const publishedAt: number[] = [];
    for (let i = 0; i < samples; i++) {
      const landed = receivers.reached((i + 1) * n);
      publishedAt[i] = now();
      await pub.post(notification(i));
      await landed;
      await new Promise((r) => setTimeout(r, 2));
    }
    return (await receivers.records())
      .filter((r) => r.tag >= 0)
      .map((r) => r.at - publishedAt[r.tag]!);
  } finally {
    await pub.close();
  }
}

/** Durable publishes/s against the hub, or the same POSTs against a bare server, best of `settings`. */
async function publishRate(
  url: string,
  pid: number,
  token: string,
  hubUrl: string,
  total: number,
  settings: number[],
): Promise<Measured & { concurrency: number }> {
  const bodies = Array.from({ length: 64 }, (_, i) => notification(1_000_000 + i));
  let best: (Measured & { concurrency: number }) | undefined;
  for (const c of settings) {
    const agent = new Agent({ connections: c, pipelining: 1 });
    const headers = {
      'content-type': 'application/xml',
      link: linkFor('http://bench.test/publish-only', hubUrl),
      authorization: `Bearer ${token}`,
    };
    const send = async (i: number) => {
      const res = await request(url, {
        method: 'POST',
        headers,
        body: bodies[i % bodies.length],
        dispatcher: agent,
      });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`publish answered ${res.statusCode}`);
    };
    try {
      await pool(Math.min(500, total), c, send); // connections open
      const m = await metered(pid, async () => {
        const started = now();
        await pool(total, c, send);
        return total / ((now() - started) / 1000);
      });
      if (!best || m.value > best.perSecond)
        best = {
          perSecond: m.value,
          cpuUsPerOp: (m.cpuMs * 1000) / total,
          peakRssMiB: m.peakRssMiB,
          concurrency: c,
        };
    } finally {
      await agent.close();
    }
  }
  return best!;
}

function summary(list: Measured[]) {
  const rate = spread(list.map((m) => m.perSecond));
  return {
    rate,
    cpu: spread(list.map((m) => m.cpuUsPerOp)).median,
    rss: Math.max(...list.map((m) => m.peakRssMiB)),
  };
}

const plural = (n: number) => `${n.toLocaleString('en-US')} subscriber${n === 1 ? '' : 's'}`;

const FAN_OUT_TARGET: Record<number, string> = {
  1: 'ratio >= 0.6',
  10: 'ratio >= 0.6',
  100: 'ratio >= 0.8',
  1000: 'ratio >= 0.8',
};

const scenario: BenchScenario = {
  name: 'hub',
  async run(ctx: BenchContext): Promise<BenchRow[]> {
    const rows: BenchRow[] = [];
    const receivers = await Receivers.start();
    const raw = await RawSender.start();
    const dbFile = join(ctx.tmpDir, 'hub.db');
    let hub: HubChild | undefined;
    try {
      const added = await runCli([
        'source',
        'add',
        'bench',
        '--topic-prefix',
        'http://bench.test/',
        '--db',
        dbFile,
      ]);
      const token = (JSON.parse(added.find((l) => l.startsWith('{'))!) as { token: string }).token;
      hub = await startHubChild(dbFile);
      const h = hub;
      const body = notification(0);

      let subscribed = 0;
      // BENCH_HUB_SIZES=100,1000 limits the fan-out sizes (for profiling one stage).
      const sizes = (process.env.BENCH_HUB_SIZES ?? '1,10,100,1000').split(',').map(Number);
      for (const n of sizes) {
        const topic = `http://bench.test/fanout-${n}`;
        const callbacks = Array.from({ length: n }, (_, i) => receivers.url(i, `/s${n}/${i}`));
        ctx.log(`subscribing ${n}`);
        await pool(n, 16, async (i) => {
          const form = new URLSearchParams({
            'hub.mode': 'subscribe',
            'hub.topic': topic,
            'hub.callback': callbacks[i]!,
          }).toString();
          const res = await request(h.url, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: form,
          });
          await res.body.dump();
          if (res.statusCode !== 202) throw new Error(`subscribe answered ${res.statusCode}`);
        });
        subscribed += n;
        await waitUntil(
          async () => (await activeSubscriptions(h.url)) >= subscribed,
          `${subscribed} active subscriptions`,
        );
        // The hub sends the stored Link header verbatim: the raw sender sends the same one.
        const headers = { 'content-type': 'application/xml', link: linkFor(topic, h.url) };
        const deliveries = Math.round((n === 1 ? 2_000 : 20_000) * ctx.scale);
        const perCallback = Math.max(5, Math.round(deliveries / n));
        // Warm-up for both (JIT, connections), not counted.
        await hubBurst(h, token, receivers, topic, n, Math.max(2, Math.round(perCallback / 5)));
        await rawFanOut(
          raw,
          receivers,
          callbacks,
          Math.max(2, Math.round(perCallback / 5)),
          body,
          headers,
        );
        ctx.log(`fan-out to ${n}: ${ROUNDS} interleaved rounds`);
        const r = await interleave(ROUNDS, {
          hub: () => hubBurst(h, token, receivers, topic, n, perCallback),
          raw: () => rawFanOut(raw, receivers, callbacks, perCallback, body, headers),
        });
        const hs = summary(r.hub);
        const rs = summary(r.raw);
        const ratios = spread(r.hub.map((m, i) => m.perSecond / r.raw[i]!.perSecond));
        ctx.log(
          `  hub ${describeSpread(hs.rate)}/s, raw ${describeSpread(rs.rate)}/s, ratio ${describeSpread(ratios)}`,
        );
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
          baseline: {
            label: 'raw sender ceiling',
            value: rs.rate.median,
            unit: 'req/s',
            range: describeRange(rs.rate),
            cpuUsPerOp: rs.cpu,
          },
          ratio: hs.rate.median / rs.rate.median,
          target: FAN_OUT_TARGET[n],
          note:
            `${perCallback * n} deliveries a round; publish -> durable store -> scheduler -> POST, first publish to last receipt; ` +
            `per-round ratios ${describeSpread(ratios)}; raw: ${CONNECTIONS_PER_ORIGIN} connections per origin like the hub's pool, ` +
            `one POST in flight per callback, best of concurrency ${rawSettings(n).join('/')} (won: ${r.raw.map((m) => m.concurrency).join(',')})`,
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
      }

      if (process.env.BENCH_HUB_SKIP_PUBLISH) return rows;
      ctx.log(`publish rate: ${ROUNDS} interleaved rounds`);
      const total = Math.round(10_000 * ctx.scale);
      const settings = [8, 32, 64];
      const bare = receivers.url(0, '/bare');
      const p = await interleave(ROUNDS, {
        hub: () => publishRate(h.url, h.child.pid!, token, h.url, total, settings),
        bare: () => publishRate(bare, receivers.pid, token, h.url, total, settings),
      });
      const ph = summary(p.hub);
      const pb = summary(p.bare);
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
          'token checked, WAL synchronous=NORMAL',
      });
      return rows;
    } finally {
      await hub?.stop();
      raw.stop();
      receivers.stop();
    }
  },
};

export default scenario;
