// Subscriber baseline sync: 10,000 resources from a Resource List into a fresh mirror
// through runBaseline (streamed list, verified fetches, temp file + fsync + rename per resource),
// next to the raw undici GET ceiling for the same URLs on the same server, same keep-alive and
// concurrency, bodies read and dropped. Both run in the driver's process, interleaved (baseline,
// GETs, baseline, GETs ... three rounds, a fresh mirror each round); median and min-max printed,
// CPU/op is this process's CPU time per resource, peak RSS its VmHWM (reset before each run).
//
// The Source is a child process (so its CPU is not charged to the subscriber's event loop): a plain
// node:http server holding a Resource List and every resource body in memory.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { mkdir, open, rename } from 'node:fs/promises';
import { Agent, request } from 'undici';
import * as subscriber from '@rsnotify/subscriber';
import type { BenchContext, BenchRow, BenchScenario } from '../types.js';
import { describeRange, interleave, metered, spread } from '../lib/measure.js';

// The DATA modules as the package re-exports them (subscriber/src/index.ts is wired by the CONTROL
// side). Looked up at run time so that, until they are exported, only this scenario fails and the
// bench runner (which imports every scenario file) keeps working.
interface DataApi {
  createHttpGetter(
    this: void,
    o: { allowPrivateNetworks: boolean; perHostConcurrency?: number },
  ): { close(): Promise<void> };
  createMirror(
    this: void,
    o: {
      mirrorDir: string;
      http: unknown;
      perHostConcurrency?: number;
      syncBatchFiles?: number;
      state: {
        get(uri: string): Promise<undefined | object>;
        set(uri: string, s: object | null): Promise<void>;
      };
    },
  ): { close(): Promise<void> };
  runBaseline(
    this: void,
    url: string,
    http: unknown,
    mirror: unknown,
  ): Promise<{ resources: number; written: number; failed: { error?: { code: string } }[] }>;
}

function dataApi(module: unknown = subscriber): DataApi {
  const api = module as Partial<DataApi>;
  if (!api.runBaseline || !api.createMirror || !api.createHttpGetter) {
    throw new Error(
      '@rsnotify/subscriber does not export runBaseline, createMirror and createHttpGetter yet',
    );
  }
  return api as DataApi;
}

const CONCURRENCY = 8;

// Runs in the child (plain JavaScript, no build). Bodies are 200..1200 bytes, deterministic.
const SOURCE_JS = String.raw`
import { createServer } from 'node:http';
import { createHash } from 'node:crypto';
const count = Number(process.env.COUNT);
const bodies = [];
let list = '';
const server = createServer((req, res) => {
  if (req.url === '/resourcelist.xml') {
    res.writeHead(200, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(list) });
    res.end(list);
    return;
  }
  const m = /^\/resources\/(\d+)$/.exec(req.url ?? '');
  const body = m ? bodies[Number(m[1])] : undefined;
  if (!body) { res.writeHead(404, { 'content-length': 0 }).end(); return; }
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => {
  const base = 'http://127.0.0.1:' + server.address().port;
  // Raw on purpose: this Source runs as plain JavaScript in a child process, without the test kit.
  const parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">',
    '<rs:ln rel="up" href="' + base + '/capabilitylist.xml"/>', '<rs:md capability="resourcelist" at="2026-01-01T00:00:00Z"/>'];
  for (let i = 0; i < count; i++) {
    const size = 200 + ((i * 7919) % 1000);
    const body = Buffer.alloc(size, 'resource ' + i + ' ');
    bodies.push(body);
    const md5 = createHash('md5').update(body).digest('hex');
    const sha = createHash('sha256').update(body).digest('hex');
    parts.push('<url><loc>' + base + '/resources/' + i + '</loc><rs:md hash="md5:' + md5 + ' sha-256:' + sha + '" length="' + size + '"/></url>');
  }
  parts.push('</urlset>');
  list = parts.join('\n');
  process.stdout.write(JSON.stringify({ base }) + '\n');
});
process.on('SIGTERM', () => { server.closeAllConnections(); server.close(() => process.exit(0)); });
`;

async function startSource(count: number): Promise<{ base: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', SOURCE_JS], {
    env: { ...process.env, COUNT: String(count) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let buf = '';
  const base = await new Promise<string>((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`bench Source exited with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      buf += chunk.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve((JSON.parse(buf.slice(0, nl)) as { base: string }).base);
    });
  });
  return { base, child };
}

/** The ceiling: the same GETs over one keep-alive Agent, `CONCURRENCY` in flight, bodies read and dropped. */
async function rawGets(urls: readonly string[]): Promise<number> {
  const agent = new Agent({ connections: CONCURRENCY, pipelining: 1, keepAliveTimeout: 60_000 });
  let next = 0;
  let bytes = 0;
  const worker = async (): Promise<void> => {
    while (next < urls.length) {
      const url = urls[next++]!;
      const res = await request(url, { dispatcher: agent });
      if (res.statusCode !== 200) throw new Error(`GET ${url}: ${res.statusCode}`);
      for await (const chunk of res.body) bytes += (chunk as Buffer).length;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  if (bytes === 0) throw new Error('no bytes read');
  return urls.length / seconds;
}

/**
 * The machine's floor for a durable mirror: the same GETs, each body written to a temporary file in
 * one directory and renamed into place (no hash, no verification, no state), with or without the
 * fsync of each file. What this costs above the bare GETs is the file system's share, which no
 * subscriber code can remove; with `fsync` it is the floor of a mirror that fsyncs every file.
 */
async function rawGetAndWrite(
  urls: readonly string[],
  dir: string,
  fsync: boolean,
): Promise<number> {
  await mkdir(dir, { recursive: true });
  const agent = new Agent({ connections: CONCURRENCY, pipelining: 1, keepAliveTimeout: 60_000 });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < urls.length) {
      const i = next++;
      const res = await request(urls[i]!, { dispatcher: agent });
      if (res.statusCode !== 200) throw new Error(`GET ${urls[i]}: ${res.statusCode}`);
      const chunks: Buffer[] = [];
      for await (const chunk of res.body) chunks.push(chunk as Buffer);
      const tmp = join(dir, `.tmp-${i}`);
      const handle = await open(tmp, 'wx', 0o644);
      try {
        await handle.writev(chunks);
        if (fsync) await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(tmp, join(dir, String(i)));
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  return urls.length / seconds;
}

async function baseline(
  base: string,
  mirrorDir: string,
  expected: number,
  api: DataApi = dataApi(),
): Promise<number> {
  const { createHttpGetter, createMirror, runBaseline } = api;
  const http = createHttpGetter({ allowPrivateNetworks: true, perHostConcurrency: CONCURRENCY });
  // The resource state lives in memory here (the daemon keeps it in SQLite); the mirror sees only
  // the interface.
  const rows = new Map<string, object>();
  const mirror = createMirror({
    mirrorDir,
    http,
    perHostConcurrency: CONCURRENCY,
    // BENCH_SYNC_BATCH_FILES: the mirror's fsync batch size (syncBatchFiles), to compare sizes.
    ...(process.env.BENCH_SYNC_BATCH_FILES
      ? { syncBatchFiles: Number(process.env.BENCH_SYNC_BATCH_FILES) }
      : {}),
    state: {
      get: async (uri) => rows.get(uri),
      set: async (uri, s) => {
        if (s) rows.set(uri, s);
        else rows.delete(uri);
      },
    },
  });
  try {
    const started = performance.now();
    const r = await runBaseline(`${base}/resourcelist.xml`, http, mirror);
    const seconds = (performance.now() - started) / 1000;
    if (r.resources !== expected || r.written !== expected || r.failed.length > 0) {
      throw new Error(
        `baseline incomplete: ${r.written}/${r.resources} written, ${r.failed.length} failed (${r.failed[0]?.error?.code ?? ''})`,
      );
    }
    return r.resources / seconds;
  } finally {
    await mirror.close();
    await http.close();
  }
}

const scenario: BenchScenario = {
  name: 'subscriber-baseline',
  async run(ctx: BenchContext): Promise<BenchRow[]> {
    const count = Math.max(200, Math.round(10_000 * ctx.scale));
    dataApi(); // fail before starting anything when the package does not export the DATA modules
    // BENCH_BASELINE_AB=<another checkout's subscriber/src/index.ts>: one more arm, interleaved with
    // the others, running that code's baseline (an A/B against e.g. the main branch in one run).
    const abPath = process.env.BENCH_BASELINE_AB;
    const abApi = abPath ? dataApi(await import(abPath)) : undefined;
    // BENCH_BASELINE_ARMS=baseline,gets: only these arms (a profile of one arm); default all.
    const only = process.env.BENCH_BASELINE_ARMS?.split(',');
    const { base, child } = await startSource(count);
    try {
      const urls = Array.from({ length: count }, (_, i) => `${base}/resources/${i}`);
      await rawGets(urls.slice(0, Math.min(1_000, count))); // warm-up (JIT, sockets)
      const perOp = async (fn: () => Promise<number>) => {
        const m = await metered(process.pid, fn);
        return {
          perSecond: m.value,
          cpuUsPerOp: (m.cpuMs * 1000) / count,
          peakRssMiB: m.peakRssMiB,
        };
      };
      type Measured = Awaited<ReturnType<typeof perOp>>;
      const skipped = async (): Promise<Measured> => ({
        perSecond: NaN,
        cpuUsPerOp: NaN,
        peakRssMiB: NaN,
      });
      const arm =
        (name: string, fn: (round: number) => Promise<Measured>) =>
        (round: number): Promise<Measured> =>
          only && !only.includes(name) ? skipped() : fn(round);
      const abArm = {
        baselineAB: async (round: number): Promise<Measured> => {
          if (!abApi || (only && !only.includes('baselineAB'))) return skipped();
          const mirrorDir = join(ctx.tmpDir, `mirror-ab-${round}`);
          await mkdir(mirrorDir);
          return perOp(() => baseline(base, mirrorDir, count, abApi));
        },
      };
      const armsInOrder = {
        baseline: arm('baseline', async (round) => {
          const mirrorDir = join(ctx.tmpDir, `mirror-${round}`);
          await mkdir(mirrorDir);
          return perOp(() => baseline(base, mirrorDir, count));
        }),
        gets: arm('gets', () => perOp(() => rawGets(urls))),
        writes: arm('writes', (round) =>
          perOp(() => rawGetAndWrite(urls, join(ctx.tmpDir, `plain-${round}`), false)),
        ),
        syncedWrites: arm('syncedWrites', (round) =>
          perOp(() => rawGetAndWrite(urls, join(ctx.tmpDir, `synced-${round}`), true)),
        ),
      };
      // BENCH_BASELINE_AB_FIRST=1: the A/B arm runs first in each round. The arm that follows
      // another mirror's 10,000 files inherits its write-back, so the order is worth swapping once.
      const r = await interleave(
        3,
        process.env.BENCH_BASELINE_AB_FIRST
          ? { ...abArm, ...armsInOrder }
          : { ...armsInOrder, ...abArm },
      );
      const w = spread(r.writes.map((x) => x.perSecond));
      const ws = spread(r.syncedWrites.map((x) => x.perSecond));
      const cpu = (list: { cpuUsPerOp: number }[]) => spread(list.map((x) => x.cpuUsPerOp)).median;
      const floorRow = (
        figure: string,
        m: ReturnType<typeof spread>,
        list: { cpuUsPerOp: number; peakRssMiB: number }[],
        note: string,
      ): BenchRow => ({
        scenario: 'subscriber baseline',
        figure,
        value: m.median,
        unit: 'resources/s',
        range: describeRange(m),
        cpuUsPerOp: cpu(list),
        peakRssMiB: Math.max(...list.map((x) => x.peakRssMiB)),
        baseline: {
          label: 'raw undici GET, bodies dropped',
          value: g.median,
          unit: 'resources/s',
          range: describeRange(g),
          cpuUsPerOp: cpu(r.gets),
        },
        ratio: m.median / g.median,
        note,
      });
      const b = spread(r.baseline.map((x) => x.perSecond));
      const g = spread(r.gets.map((x) => x.perSecond));
      ctx.log(
        `floors: GET + write ${w.median.toFixed(0)}/s, GET + write + fsync ${ws.median.toFixed(0)}/s`,
      );
      ctx.log(`runBaseline ${b.median.toFixed(0)}/s, raw GETs ${g.median.toFixed(0)}/s`);
      for (const [name, list] of Object.entries(r))
        ctx.log(
          `${name}: ${list.map((x) => `${x.perSecond.toFixed(0)}/s ${x.cpuUsPerOp.toFixed(0)} µs`).join(', ')}`,
        );
      const ab = spread(r.baselineAB.map((x) => x.perSecond));
      const abRows: BenchRow[] = abApi
        ? [
            floorRow(
              `A/B: runBaseline of ${abPath} (same run, interleaved)`,
              ab,
              r.baselineAB,
              `this code / that code: ${(b.median / ab.median).toFixed(2)} in resources/s, ` +
                `per-round ratios to raw ${describeRange(spread(r.baselineAB.map((x, i) => x.perSecond / r.gets[i]!.perSecond)))}`,
            ),
          ]
        : [];
      return [
        {
          scenario: 'subscriber baseline',
          figure: `baseline sync of ${count.toLocaleString('en-US')} resources (runBaseline -> verified atomic files)`,
          value: b.median,
          unit: 'resources/s',
          range: describeRange(b),
          cpuUsPerOp: spread(r.baseline.map((x) => x.cpuUsPerOp)).median,
          peakRssMiB: Math.max(...r.baseline.map((x) => x.peakRssMiB)),
          baseline: {
            label: 'raw undici GET, bodies dropped',
            value: g.median,
            unit: 'resources/s',
            range: describeRange(g),
            cpuUsPerOp: spread(r.gets.map((x) => x.cpuUsPerOp)).median,
          },
          ratio: b.median / g.median,
          target: 'ratio >= 0.5',
          note:
            `${CONCURRENCY} connections, keep-alive; every file fsync'd before it is recorded; md5 + sha-256 + length verified; ` +
            `per-round ratios ${describeRange(spread(r.baseline.map((x, i) => x.perSecond / r.gets[i]!.perSecond)))}; ` +
            `vs the fsync floor below: ${(b.median / ws.median).toFixed(2)}`,
        },
        floorRow(
          'floor: the same GETs + temp file + rename, no fsync (file system share)',
          w,
          r.writes,
          'no hash, no verification, no state: only what the file system charges per file',
        ),
        floorRow(
          'floor: the same GETs + temp file + fsync + rename (a durable mirror per file)',
          ws,
          r.syncedWrites,
          'the least a mirror that fsyncs each file before recording it can do',
        ),
        ...abRows,
      ];
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit').catch(() => undefined);
    }
  },
};

export default scenario;
