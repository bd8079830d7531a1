// The parties of the hub benchmark, each a process of its own so no party's CPU is charged to
// another: the receivers (plain node:http on RECEIVER_PORTS ports = origins, counting and recording
// deliveries), the hub (its CLI, optionally under --cpu-prof), the admin CLI, and the notification
// bodies and subscription helpers the arms share.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { probeArgs, profileArgs } from './measure.js';

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

const built = new Set<string>();
/**
 * The measured daemons run their build (dist/, what `pnpm build` ships), not their sources through
 * tsx (a transform hook, esbuild's name helpers, source-mapped stacks: ~6 % more CPU per delivery
 * and per publish in one paired run). `tsc -b` first, once per checkout, so dist is never stale.
 */
export function ensureBuilt(root: string): void {
  if (built.has(root)) return;
  const r = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-b'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error(`tsc -b failed in ${root}`);
  built.add(root);
}
export const RECEIVER_PORTS = 4;
// The hub is started with this many connections per origin (`connectionsPerOrigin`, its default is
// 64) and the raw ceiling uses the same, so neither has more sockets to the receivers than the other.
export const CONNECTIONS_PER_ORIGIN = 16;
export const HUB_IN_FLIGHT = 256; // the hub's default --max-in-flight
// BENCH_ROUNDS=<n> runs more rounds where a difference of a few per cent must be told from noise.
export const ROUNDS = Number(process.env.BENCH_ROUNDS) || 3;
// Full rounds of every arm run and thrown away first (measure.ts warmUp); BENCH_WARM_UP_ROUNDS=0
// leaves them out (a quick look, not a figure to quote).
export const WARM_UP_ROUNDS = Number(process.env.BENCH_WARM_UP_ROUNDS ?? 3);

// The receivers (child process, plain JavaScript): echo verification challenges, count deliveries,
// optionally record (tag, receipt time) pairs, and report when a count is reached.
export const RECEIVER_JS = String.raw`
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
export const ports = Number(process.env.PORTS);
let count = 0;
let recording = false;
let records = [];
let expect = undefined;
export const TAG = /tag-(\d+)-/;
export function handle(req, res) {
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
export const servers = [];
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

export const now = (): number => performance.timeOrigin + performance.now();

export class Receivers {
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

/** SIGTERM, then waits for the exit. */
async function stopGracefully(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

export interface HubChild {
  /** 'hub', or 'base' for the BENCH_HUB_BASE checkout. */
  name: string;
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/**
 * The floor hub (lib/floor-hub.ts): a HubChild the bursts drive like the hub, subscribed over IPC.
 * With `checkTokenSha256` it is the checked floor ('checked-floor'): token and body checked too.
 */
export async function startFloorHub(
  workDir: string,
  checkTokenSha256?: string,
): Promise<HubChild & { subscribe(topic: string, callbacks: string[]): Promise<void> }> {
  const name = checkTokenSha256 ? 'checked-floor' : 'floor';
  const child = spawn(
    process.execPath,
    [
      '--conditions=@rsnotify/source',
      '--import',
      'tsx',
      ...profileArgs(name),
      ...probeArgs({ runsTsx: true }),
      'test/bench/lib/floor-hub.ts',
    ],
    {
      cwd: repoRoot,
      env: {
        ...process.env,
        WORK_DIR: join(workDir, name),
        CONNECTIONS: String(CONNECTIONS_PER_ORIGIN),
        MAX_IN_FLIGHT: String(HUB_IN_FLIGHT),
        BENCH_PROBE_NAME: name,
        ...(checkTokenSha256 ? { CHECK_TOKEN_SHA256: checkTokenSha256 } : {}),
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const first = await new Promise<{ url: string }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { url: string }));
    child.once('exit', (code) => reject(new Error(`floor hub exited ${code}`)));
  });
  return {
    name,
    child,
    url: first.url,
    subscribe: (topic, callbacks) =>
      new Promise((resolve) => {
        child.once('message', () => resolve());
        child.send({ cmd: 'subscribe', topic, callbacks });
      }),
    stop: () => stopGracefully(child),
  };
}

export function runCli(args: string[]): Promise<string[]> {
  const child = spawn(
    process.execPath,
    ['--conditions=@rsnotify/source', '--import', 'tsx', 'hub/src/cli.ts', ...args],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const lines: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (l) => lines.push(l));
  return new Promise((resolve) => child.on('exit', () => resolve(lines)));
}

/** Adds the bench Source (topics under http://bench.test/) to the hub database `db`; its token. */
export async function addBenchSource(db: string): Promise<string> {
  const added = await runCli([
    'source',
    'add',
    'bench',
    '--topic-prefix',
    'http://bench.test/',
    '--db',
    db,
  ]);
  return (JSON.parse(added.find((l) => l.startsWith('{'))!) as { token: string }).token;
}

/**
 * Starts a hub. `root`: the checkout whose hub/src runs (BENCH_HUB_BASE names a second one, e.g. a
 * worktree of main, measured as an arm of its own in the same run); `name` labels its samples;
 * `config`: where its config file is written (beside a SQLite file by default; a PostgreSQL URL
 * needs a path of its own).
 */
export async function startHubChild(
  db: string,
  root = repoRoot,
  name = 'hub',
  config = `${db}.config.json`,
): Promise<HubChild> {
  ensureBuilt(root);
  writeFileSync(config, JSON.stringify({ connectionsPerOrigin: CONNECTIONS_PER_ORIGIN }));
  const child = spawn(
    process.execPath,
    [
      ...profileArgs(name),
      ...probeArgs({ runsTsx: false }),
      'hub/dist/cli.js',
      'serve',
      '--port',
      '0',
      '--db',
      db,
      '--config',
      config,
      '--allow-private-networks',
      '--no-check-topics',
      '--log-level',
      'info',
      '--max-in-flight',
      String(HUB_IN_FLIGHT),
    ],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, BENCH_PROBE_NAME: name },
    },
  );
  const lines = createInterface({ input: child.stdout! });
  // BENCH_HUB_STDOUT=<prefix>: every line the hub prints, stamped with the time (ms since the
  // epoch), into <prefix>.<name>, so V8's --trace-opt and --trace-deopt output
  // (BENCH_HUB_NODE_FLAGS) can be laid against the measured windows (lib/jit-summary.ts).
  const trace = process.env.BENCH_HUB_STDOUT;
  if (trace) {
    const out = createWriteStream(`${trace}.${name}`);
    lines.on('line', (l) => out.write(`${Date.now()} ${l}\n`));
  }
  const url = await new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => {
      if (line.includes('"hub.listening"'))
        resolve(String((JSON.parse(line) as { url: string }).url));
    });
    child.once('exit', (code) => reject(new Error(`hub exited ${code}`)));
  });
  return {
    name,
    child,
    url,
    stop: () => stopGracefully(child),
  };
}

export function notification(tag: number, entries = 5): Buffer {
  // Raw on purpose: the payload's bytes are part of the recorded bench baselines.
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

export const linkFor = (topic: string, hub: string) =>
  `<${topic}>; rel="self", <${hub}>; rel="hub", <http://bench.test/capabilitylist.xml>; rel="resourcesync"`;

export async function activeSubscriptions(hubUrl: string): Promise<number> {
  const res = await request(new URL('/metrics', hubUrl).href);
  const m = /rsnotify_hub_subscriptions\{state="active"\} (\d+)/.exec(await res.body.text());
  return m ? Number(m[1]) : 0;
}

export async function waitUntil(
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
