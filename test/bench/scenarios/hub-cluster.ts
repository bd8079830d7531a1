// Hub scale-out benchmark, every figure from the same run: the same workload on
//   SQLite, 1 process (the baseline) | PostgreSQL, 1 process | PostgreSQL, 2 processes (one database)
// - fan-out deliveries/s at 100 and 1,000 subscribers (burst: first publish to last receipt);
// - publish-to-receipt p50/p99 at 100 and 1,000 subscribers (paced: one notification at a time);
// - durable publishes/s (32 in flight; with 2 processes spread over both).
// PostgreSQL is a throw-away server started here with fsync on (durable commits, like SQLite's WAL).
// Hubs and receivers run as their own processes (the real CLI; plain node:http receivers).
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { createDatabase, startPostgres } from '../../../scripts/postgres-server.mjs';
import type { BenchContext, BenchRow, BenchScenario } from '../types.js';
import { percentile, profileArgs } from '../lib/measure.js';
import { describeRoleCpu, processTreeSeconds, meterRoles, type RoleCpu } from '../lib/proc-cpu.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const now = () => performance.timeOrigin + performance.now();

const RECEIVER_JS = String.raw`
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
let count = 0, records = [], recording = false, expect;
const TAG = /tag-(\d+)-/;
function handle(req, res) {
  if (req.method === 'GET') { res.writeHead(200).end(new URL(req.url, 'http://x').searchParams.get('hub.challenge') ?? ''); return; }
  const chunks = recording ? [] : undefined;
  req.on('data', (c) => { if (chunks) chunks.push(c); });
  req.on('end', () => {
    count++;
    if (chunks) { const m = TAG.exec(Buffer.concat(chunks).toString('latin1')); records.push(m ? Number(m[1]) : -1, performance.timeOrigin + performance.now()); }
    res.writeHead(200, { 'content-length': '0' }).end();
    if (expect !== undefined && count >= expect) { expect = undefined; process.send({ at: performance.timeOrigin + performance.now() }); }
  });
}
const ports = [];
for (let i = 0; i < 4; i++) { const s = createServer(handle); s.keepAliveTimeout = 60000; ports.push(new Promise((r) => s.listen(0, '127.0.0.1', () => r(s.address().port)))); }
Promise.all(ports).then((list) => process.send({ ports: list }));
process.on('message', (m) => {
  if (m.cmd === 'reset') { count = 0; records = []; recording = !!m.record; expect = undefined; process.send({ ok: true }); }
  else if (m.cmd === 'expect') { if (count >= m.n) process.send({ at: performance.timeOrigin + performance.now() }); else expect = m.n; }
  else if (m.cmd === 'records') process.send({ records });
});
`;

class Receivers {
  readonly pid: number;
  private waiting: ((m: Record<string, unknown>) => void)[] = [];
  private constructor(
    private readonly child: ChildProcess,
    readonly ports: number[],
  ) {
    this.pid = child.pid!;
    child.on('message', (m: Record<string, unknown>) => this.waiting.shift()?.(m));
  }
  static async start(): Promise<Receivers> {
    const child = spawn(process.execPath, ['--input-type=module', '-e', RECEIVER_JS], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const first = await new Promise<{ ports: number[] }>((resolve) =>
      child.once('message', (m) => resolve(m as { ports: number[] })),
    );
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
  stop(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

function cli(args: string[], nodeArgs: string[] = []): ChildProcess {
  return spawn(
    process.execPath,
    [...nodeArgs, '--conditions=@rsnotify/source', '--import', 'tsx', 'hub/src/cli.ts', ...args],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

async function addSource(db: string): Promise<string> {
  const child = cli(['source', 'add', 'bench', '--topic-prefix', 'http://bench.test/', '--db', db]);
  child.stderr?.resume();
  const lines: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (l) => lines.push(l));
  await new Promise((r) => child.on('exit', r));
  return (JSON.parse(lines.find((l) => l.startsWith('{'))!) as { token: string }).token;
}

async function startHub(
  db: string,
  profileName: string,
): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const child = cli(
    [
      'serve',
      '--port',
      '0',
      '--db',
      db,
      '--allow-private-networks',
      '--no-check-topics',
      '--log-level',
      'info',
    ],
    profileArgs(profileName),
  );
  child.stderr!.pipe(process.stderr);
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.includes('"hub.listening"'))
        resolve(String((JSON.parse(line) as { url: string }).url));
    });
    child.once('exit', (code) => reject(new Error(`hub exited ${code}`)));
  });
  return {
    url,
    pid: child.pid!,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
    },
  };
}

function notification(tag: number): Buffer {
  // Raw on purpose: the payload's bytes are part of the recorded bench baselines.
  const urls = Array.from(
    { length: 5 },
    (_, i) =>
      `<url><loc>http://bench.test/res/tag-${tag}-/${i}</loc><rs:md change="updated" datetime="2026-01-01T00:00:00.${String(i).padStart(3, '0')}Z"/></url>`,
  ).join('\n');
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="change-notification" from="2026-01-01T00:00:00Z" until="2026-01-01T00:00:01Z"/>
${urls}
</urlset>
`);
}

async function pool(
  total: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, total) }, async () => {
      while (next < total) await task(next++);
    }),
  );
}

/** Subscriptions driven (SQLite: the active ones, all driven by the one process; PostgreSQL: claims summed over processes). */
async function driven(hubs: readonly string[]): Promise<number> {
  let n = 0;
  for (const h of hubs) {
    const claims = (
      (await (await request(new URL('/healthz', h).href)).body.json()) as { claims?: number }
    ).claims;
    if (claims !== undefined) {
      n += claims;
      continue;
    }
    const m = /rsnotify_hub_subscriptions\{state="active"\} (\d+)/.exec(
      await (await request(new URL('/metrics', h).href)).body.text(),
    );
    n += m ? Number(m[1]) : 0;
  }
  return n;
}

interface Measured {
  fanOut: Map<number, { perSecond: number; p50: number; p99: number; cpu: RoleCpu; total: number }>;
  publishes: number;
}

/** CPU seconds so far of the PostgreSQL server (postmaster and backends), from its data directory. */
function postgresSeconds(dataDir: string | undefined): number {
  if (!dataDir) return 0;
  return processTreeSeconds(
    Number(readFileSync(join(dataDir, 'postmaster.pid'), 'latin1').split('\n')[0]),
  );
}

async function measure(
  ctx: BenchContext,
  db: string,
  processes: number,
  receivers: Receivers,
  pgDataDir?: string,
): Promise<Measured> {
  const token = await addSource(db);
  const engine = pgDataDir ? 'postgres' : 'sqlite';
  const hubs = await Promise.all(
    Array.from({ length: processes }, () => startHub(db, `hub-cluster-${engine}-${processes}p`)),
  );
  const urls = hubs.map((h) => h.url);
  const agent = new Agent({ connections: 16, pipelining: 1 });
  const post = async (hubUrl: string, topic: string, tag: number) => {
    const res = await request(hubUrl, {
      method: 'POST',
      dispatcher: agent,
      body: notification(tag),
      headers: {
        'content-type': 'application/xml',
        authorization: `Bearer ${token}`,
        link: `<${topic}>; rel="self", <${hubUrl}>; rel="hub"`,
      },
    });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`publish answered ${res.statusCode}`);
  };
  const fanOut: Measured['fanOut'] = new Map();
  try {
    let subscribed = 0;
    for (const n of [100, 1000]) {
      const topic = `http://bench.test/fanout-${n}`;
      await pool(n, 16, async (i) => {
        const res = await request(urls[i % urls.length]!, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            'hub.mode': 'subscribe',
            'hub.topic': topic,
            'hub.callback': receivers.url(i, `/s${n}/${i}`),
          }).toString(),
        });
        await res.body.dump();
      });
      subscribed += n;
      const deadline = Date.now() + 180_000;
      while ((await driven(urls)) < subscribed) {
        if (Date.now() > deadline)
          throw new Error(`${subscribed} subscriptions not driven in time`);
        await new Promise((r) => setTimeout(r, 100));
      }
      // Burst: ~20k deliveries, publishes spread over the processes.
      const notifications = Math.max(5, Math.round((20_000 / n) * ctx.scale));
      await receivers.reset();
      const endCpu = meterRoles({
        hub: () => hubs.map((h) => h.pid),
        postgres: () => postgresSeconds(pgDataDir),
        receivers: () => [receivers.pid],
        publisher: () => [process.pid],
      });
      const started = now();
      const done = receivers.reached(notifications * n);
      await pool(notifications, 8, (i) => post(urls[i % urls.length]!, topic, i));
      const perSecond = (notifications * n) / (((await done) - started) / 1000);
      const cpu = endCpu();
      // Paced: each notification after the previous fan-out landed, to alternating processes.
      const samples = Math.max(5, Math.round((n === 100 ? 60 : 20) * ctx.scale));
      await receivers.reset(true);
      const publishedAt: number[] = [];
      for (let i = 0; i < samples; i++) {
        const landed = receivers.reached((i + 1) * n);
        publishedAt[i] = now();
        await post(urls[i % urls.length]!, topic, i);
        await landed;
      }
      const lat = (await receivers.records())
        .filter((r) => r.tag >= 0)
        .map((r) => r.at - publishedAt[r.tag]!);
      fanOut.set(n, {
        perSecond,
        p50: percentile(lat, 50),
        p99: percentile(lat, 99),
        cpu,
        total: notifications * n,
      });
      ctx.log(describeRoleCpu(cpu, notifications * n, 'delivery', 'deliveries'));
      ctx.log(`${processes} process(es), ${n} subscribers: ${Math.round(perSecond)} deliveries/s`);
    }
    // Durable publishes/s on a topic nobody subscribed (the commit path alone).
    const total = Math.round(10_000 * ctx.scale);
    await pool(500, 32, (i) => post(urls[i % urls.length]!, 'http://bench.test/publish-only', i));
    const started = now();
    await pool(total, 32, (i) => post(urls[i % urls.length]!, 'http://bench.test/publish-only', i));
    return { fanOut, publishes: total / ((now() - started) / 1000) };
  } finally {
    await agent.close();
    await Promise.all(hubs.map((h) => h.stop()));
  }
}

const scenario: BenchScenario = {
  name: 'hub-cluster',
  async run(ctx: BenchContext): Promise<BenchRow[]> {
    const pg = await startPostgres({ fsync: true });
    if ('error' in pg) {
      return [
        {
          scenario: 'hub cluster',
          figure: 'SKIPPED',
          value: NaN,
          unit: '',
          note: `PostgreSQL could not be started: ${pg.error}`,
        },
      ];
    }
    const receivers = await Receivers.start();
    try {
      ctx.log('SQLite, 1 process');
      const sqlite = await measure(ctx, join(ctx.tmpDir, 'hub.db'), 1, receivers);
      ctx.log('PostgreSQL, 1 process');
      const pg1 = await measure(
        ctx,
        createDatabase(pg.adminUrl, 'bench1'),
        1,
        receivers,
        pg.dataDir,
      );
      ctx.log('PostgreSQL, 2 processes');
      const pg2 = await measure(
        ctx,
        createDatabase(pg.adminUrl, 'bench2'),
        2,
        receivers,
        pg.dataDir,
      );
      const rows: BenchRow[] = [];
      const configs: [string, Measured, Measured | undefined, string | undefined, string][] = [
        ['SQLite, 1 process', sqlite, undefined, undefined, ''],
        ['PostgreSQL, 1 process', pg1, sqlite, 'ratio >= 0.5', 'SQLite 1 process'],
        ['PostgreSQL, 2 processes', pg2, pg1, 'ratio >= 1.3', 'PostgreSQL 1 process'],
      ];
      for (const [label, m, base, target, baseLabel] of configs) {
        for (const n of [100, 1000]) {
          const f = m.fanOut.get(n)!;
          const b = base?.fanOut.get(n);
          rows.push({
            scenario: 'hub cluster',
            figure: `${label}: fan-out deliveries/s, ${n} subscribers`,
            value: f.perSecond,
            unit: 'deliveries/s',
            baseline: b
              ? { label: baseLabel, value: b.perSecond, unit: 'deliveries/s' }
              : undefined,
            ratio: b ? f.perSecond / b.perSecond : undefined,
            target,
            note: describeRoleCpu(f.cpu, f.total, 'delivery', 'deliveries'),
          });
          rows.push({
            scenario: 'hub cluster',
            figure: `${label}: publish-to-receipt p50 / p99, ${n} subscribers`,
            value: f.p50,
            unit: 'ms',
            note: `p99 ${f.p99.toFixed(1)} ms`,
          });
        }
        rows.push({
          scenario: 'hub cluster',
          figure: `${label}: durable publishes/s`,
          value: m.publishes,
          unit: 'publishes/s',
          baseline: base
            ? { label: baseLabel, value: base.publishes, unit: 'publishes/s' }
            : undefined,
          ratio: base ? m.publishes / base.publishes : undefined,
          note: '32 in flight; PostgreSQL fsync on, synchronous_commit on',
        });
      }
      return rows;
    } finally {
      receivers.stop();
      pg.stop();
    }
  },
};

export default scenario;
