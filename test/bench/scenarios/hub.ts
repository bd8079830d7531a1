// Hub benchmarks, each figure next to a baseline measured in the same run:
//   (1) raw ceiling: undici keep-alive POSTs from one process straight to the callback receivers;
//   (2) fan-out of notifications to 1, 100 and 1,000 subscribers through the real hub: deliveries/s
//       (burst) and the ratio to (1); publish-to-receipt latency p50/p99 (paced, so it is the
//       pipeline's latency and not the queue of a burst);
//   (3) accepted durable ResourceSync publishes per second (parse + SQLite commit before the 200),
//       next to the same POSTs answered by a bare node:http server.
// The hub runs as its own process (the real CLI), the receivers in another (plain node:http, 4
// ports = 4 origins), so no party's CPU is charged to another's event loop. Clocks are compared
// with performance.timeOrigin + performance.now(), which is shared by processes on one machine.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import type { BenchContext, BenchRow, BenchScenario } from '../types.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const RECEIVER_PORTS = 4;
const CONNECTIONS_PER_ORIGIN = 16; // the hub's default; the raw ceiling uses the same
const HUB_IN_FLIGHT = 256; // the hub's default --max-in-flight; the raw ceiling keeps as many queued

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
  private constructor(private readonly child: ChildProcess, readonly ports: number[]) {
    child.on('message', (m: Record<string, unknown>) => this.waiting.shift()?.(m));
  }

  static async start(): Promise<Receivers> {
    const child = spawn(process.execPath, ['--input-type=module', '-e', RECEIVER_JS], { env: { ...process.env, PORTS: String(RECEIVER_PORTS) }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const first = await new Promise<{ ports: number[] }>((resolve, reject) => {
      child.once('message', (m) => resolve(m as { ports: number[] }));
      child.once('exit', (code) => reject(new Error(`receivers exited ${code}`)));
    });
    return new Receivers(child, first.ports);
  }

  private ask(m: Record<string, unknown>): Promise<Record<string, unknown>> {
    return new Promise((resolve) => { this.waiting.push(resolve); this.child.send(m); });
  }

  async reset(record = false): Promise<void> { await this.ask({ cmd: 'reset', record }); }
  /** Resolves with the receivers' clock when `n` requests have arrived since the last reset. */
  async reached(n: number): Promise<number> { return (await this.ask({ cmd: 'expect', n })).at as number; }
  async records(): Promise<{ tag: number; at: number }[]> {
    const flat = (await this.ask({ cmd: 'records' })).records as number[];
    const out: { tag: number; at: number }[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ tag: flat[i]!, at: flat[i + 1]! });
    return out;
  }

  url(i: number, path: string): string { return `http://127.0.0.1:${this.ports[i % this.ports.length]}${path}`; }

  stop(): void { if (this.child.exitCode === null) this.child.kill('SIGKILL'); }
}

interface HubChild { child: ChildProcess; url: string; stop(): Promise<void> }

function runCli(args: string[]): Promise<string[]> {
  const child = spawn(process.execPath, ['--conditions=@rsnotify/source', '--import', 'tsx', 'hub/src/cli.ts', ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (l) => lines.push(l));
  return new Promise((resolve) => child.on('exit', () => resolve(lines)));
}

async function startHubChild(dbFile: string): Promise<HubChild> {
  const child = spawn(process.execPath, ['--conditions=@rsnotify/source', '--import', 'tsx', 'hub/src/cli.ts', 'serve', '--port', '0', '--db', dbFile,
    '--allow-private-networks', '--no-check-topics', '--log-level', 'info', '--max-in-flight', String(HUB_IN_FLIGHT)], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.includes('"hub.listening"')) resolve(String((JSON.parse(line) as { url: string }).url));
    });
    child.once('exit', (code) => reject(new Error(`hub exited ${code}`)));
  });
  return {
    child, url,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

function notification(tag: number, entries = 5): Buffer {
  const urls = Array.from({ length: entries }, (_, i) =>
    `<url><loc>http://bench.test/res/tag-${tag}-/${i}</loc><rs:md change="updated" datetime="2026-01-01T00:00:00.${String(i).padStart(3, '0')}Z" hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6" length="8876" type="text/html"/></url>`).join('\n');
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="http://bench.test/capabilitylist.xml"/>
<rs:md capability="change-notification" from="2026-01-01T00:00:00Z" until="2026-01-01T00:00:01Z"/>
${urls}
</urlset>
`);
}

const linkFor = (topic: string, hub: string) => `<${topic}>; rel="self", <${hub}>; rel="hub", <http://bench.test/capabilitylist.xml>; rel="resourcesync"`;

/** Runs `total` tasks with `concurrency` in flight. */
async function pool(total: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, async () => {
    while (next < total) await task(next++);
  }));
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function activeSubscriptions(hubUrl: string): Promise<number> {
  const res = await request(new URL('/metrics', hubUrl).href);
  const m = /rsnotify_hub_subscriptions\{state="active"\} (\d+)/.exec(await res.body.text());
  return m ? Number(m[1]) : 0;
}

async function waitUntil(probe: () => Promise<boolean>, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * (1) The raw ceiling: the same POSTs (body, Content-Type, Link) straight to the receivers, with the
 * same undici call the hub's sender makes (Agent.request with origin + path), the same connections
 * per origin, and a queue as deep as the hub's in-flight limit.
 */
async function rawCeiling(receivers: Receivers, total: number, body: Buffer): Promise<number> {
  const agent = new Agent({ connections: CONNECTIONS_PER_ORIGIN, pipelining: 1, keepAliveTimeout: 10_000 });
  try {
    const headers = { 'content-type': 'application/xml', link: linkFor('http://bench.test/changes', 'http://hub.test/hub') };
    const origins = receivers.ports.map((p) => `http://127.0.0.1:${p}`);
    const send = async (i: number) => {
      const r = await agent.request({ origin: origins[i % origins.length]!, path: `/raw${i % 100}`, method: 'POST', headers, body });
      await r.body.dump();
    };
    await pool(3_000, HUB_IN_FLIGHT, send); // warm-up: connections open, code hot
    await receivers.reset();
    const started = now();
    const done = receivers.reached(total);
    await pool(total, HUB_IN_FLIGHT, send);
    const at = await done;
    return total / ((at - started) / 1000);
  } finally {
    await agent.close();
  }
}

interface FanOutResult { subscribers: number; deliveriesPerSecond: number; p50: number; p99: number; latencySamples: number }

async function fanOut(hubUrl: string, token: string, receivers: Receivers, topic: string, subscribers: number, scale: number): Promise<FanOutResult> {
  const agent = new Agent({ connections: 8, pipelining: 1 });
  const post = async (tag: number) => {
    const res = await request(hubUrl, { method: 'POST', headers: { 'content-type': 'application/xml', link: linkFor(topic, hubUrl), authorization: `Bearer ${token}` }, body: notification(tag), dispatcher: agent });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`publish answered ${res.statusCode}`);
  };
  try {
    // Burst: enough notifications for ~30k deliveries (3,000 with one subscriber, which is sequential by design).
    const notifications = Math.max(5, Math.round((subscribers === 1 ? 3_000 : 30_000 / subscribers) * scale));
    const expected = notifications * subscribers;
    await receivers.reset();
    const started = now();
    const done = receivers.reached(expected);
    // A few publishes in flight keep the hub busy; the order among them does not matter for a count.
    await pool(notifications, 8, (i) => post(i));
    const at = await done;
    const deliveriesPerSecond = expected / ((at - started) / 1000);

    // Paced: one notification at a time, each after the previous fan-out landed, receipt times recorded.
    const samples = Math.max(10, Math.round((subscribers === 1 ? 500 : subscribers === 100 ? 100 : 30) * scale));
    await receivers.reset(true);
    const publishedAt: number[] = [];
    for (let i = 0; i < samples; i++) {
      const landed = receivers.reached((i + 1) * subscribers);
      publishedAt[i] = now();
      await post(i);
      await landed;
      await new Promise((r) => setTimeout(r, 2));
    }
    const latencies = (await receivers.records()).filter((r) => r.tag >= 0).map((r) => r.at - publishedAt[r.tag]!);
    return { subscribers, deliveriesPerSecond, p50: percentile(latencies, 50), p99: percentile(latencies, 99), latencySamples: latencies.length };
  } finally {
    await agent.close();
  }
}

/** (3) Durable publishes/s with `concurrency` in flight, and the same POSTs to a bare receiver. */
async function publishRate(hubUrl: string, token: string, receivers: Receivers, total: number, concurrency: number): Promise<{ hub: number; bare: number }> {
  const agent = new Agent({ connections: concurrency, pipelining: 1 });
  const bodies = Array.from({ length: 64 }, (_, i) => notification(1_000_000 + i));
  try {
    const topic = 'http://bench.test/publish-only';
    const headers = { 'content-type': 'application/xml', link: linkFor(topic, hubUrl), authorization: `Bearer ${token}` };
    const send = async (url: string, i: number) => {
      const res = await request(url, { method: 'POST', headers, body: bodies[i % bodies.length], dispatcher: agent });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`publish answered ${res.statusCode}`);
    };
    await pool(1_000, concurrency, (i) => send(hubUrl, i)); // warm-up
    let started = now();
    await pool(total, concurrency, (i) => send(hubUrl, i));
    const hub = total / ((now() - started) / 1000);
    const bare = receivers.url(0, '/bare');
    await pool(1_000, concurrency, (i) => send(bare, i));
    started = now();
    await pool(total, concurrency, (i) => send(bare, i));
    return { hub, bare: total / ((now() - started) / 1000) };
  } finally {
    await agent.close();
  }
}

const scenario: BenchScenario = {
  name: 'hub',
  async run(ctx: BenchContext): Promise<BenchRow[]> {
    const rows: BenchRow[] = [];
    const receivers = await Receivers.start();
    const dbFile = join(ctx.tmpDir, 'hub.db');
    let hub: HubChild | undefined;
    try {
      const added = await runCli(['source', 'add', 'bench', '--topic-prefix', 'http://bench.test/', '--db', dbFile]);
      const token = (JSON.parse(added.find((l) => l.startsWith('{'))!) as { token: string }).token;
      hub = await startHubChild(dbFile);
      const hubUrl = hub.url;

      ctx.log('raw ceiling');
      const raw = await rawCeiling(receivers, Math.round(30_000 * ctx.scale), notification(0));

      const sizes = [1, 100, 1000];
      let subscribed = 0;
      const results: FanOutResult[] = [];
      for (const n of sizes) {
        const topic = `http://bench.test/fanout-${n}`;
        ctx.log(`subscribing ${n}`);
        await pool(n, 16, async (i) => {
          const body = new URLSearchParams({ 'hub.mode': 'subscribe', 'hub.topic': topic, 'hub.callback': receivers.url(i, `/s${n}/${i}`) }).toString();
          const res = await request(hubUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
          await res.body.dump();
          if (res.statusCode !== 202) throw new Error(`subscribe answered ${res.statusCode}`);
        });
        subscribed += n;
        await waitUntil(async () => (await activeSubscriptions(hubUrl)) >= subscribed, `${subscribed} active subscriptions`);
        ctx.log(`fan-out to ${n}`);
        results.push(await fanOut(hubUrl, token, receivers, topic, n, ctx.scale));
      }
      ctx.log('publish rate');
      const pub = await publishRate(hubUrl, token, receivers, Math.round(20_000 * ctx.scale), 32);

      rows.push({ scenario: 'hub raw ceiling', figure: 'undici keep-alive POSTs straight to the receivers', value: raw, unit: 'req/s',
        note: `${RECEIVER_PORTS} origins x ${CONNECTIONS_PER_ORIGIN} connections, ${HUB_IN_FLIGHT} queued, same body (${notification(0).length} B) and headers, Agent.request like the hub` });
      for (const r of results) {
        rows.push({
          scenario: 'hub fan-out', figure: `deliveries/s to ${r.subscribers} subscriber${r.subscribers === 1 ? '' : 's'} (burst)`, value: r.deliveriesPerSecond, unit: 'deliveries/s',
          baseline: { label: 'raw ceiling', value: raw, unit: 'req/s' }, ratio: r.deliveriesPerSecond / raw,
          target: r.subscribers === 1 ? 'none: one delivery in flight per subscription keeps order' : 'ratio >= 0.5',
          note: 'publish -> durable store -> scheduler -> POST; from first publish to last receipt',
        });
        rows.push({
          scenario: 'hub fan-out', figure: `publish-to-receipt p50, ${r.subscribers} subscriber${r.subscribers === 1 ? '' : 's'} (paced)`, value: r.p50, unit: 'ms',
          target: r.subscribers === 1 ? 'p50 < 5 ms' : undefined, note: `${r.latencySamples} deliveries; publish request start -> receiver has the body`,
        });
        rows.push({ scenario: 'hub fan-out', figure: `publish-to-receipt p99, ${r.subscribers} subscriber${r.subscribers === 1 ? '' : 's'} (paced)`, value: r.p99, unit: 'ms' });
      }
      rows.push({
        scenario: 'hub publish', figure: 'accepted durable ResourceSync publishes/s (parse + SQLite commit before 200)', value: pub.hub, unit: 'publishes/s',
        baseline: { label: 'same POSTs to a bare node:http server', value: pub.bare, unit: 'req/s' }, ratio: pub.hub / pub.bare,
        target: '>= 3,000/s', note: '32 in flight, token checked, WAL synchronous=NORMAL',
      });
      return rows;
    } finally {
      await hub?.stop();
      receivers.stop();
    }
  },
};

export default scenario;
