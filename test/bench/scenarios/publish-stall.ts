// The longest event-loop stall of a hub process while it takes a valid publish of the maximum body
// size (16 MiB): the hub runs in this process, perf_hooks' monitorEventLoopDelay watches the loop
// from the first byte sent to the 200. The publish is decoded, checked and parsed in 64 KiB slices,
// so the stall should be tens of ms whatever the body size; the ceiling it is judged against,
// measured in the same run, is the same notification parsed in one piece (what one request would
// block the loop for without slicing). On a loaded machine the stall includes time the process was
// not scheduled at all: read it against the ratio, not as an absolute. The second row is not
// disturbed by load: the longest CPU time the hub's thread spent between two ticks of a 1 ms timer
// (Linux: /proc/self/task/<pid>/schedstat), i.e. the stall the same work makes on a quiet machine.
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { request } from 'undici';
import { startHub } from '@rsnotify/hub';
import { parseChangeNotification } from '@rsnotify/shared';
import { createDatabase, startPostgres } from '../../../scripts/postgres-server.mjs';
import type { BenchContext, BenchRow, BenchScenario } from '../types.js';
import { watchCpuStall } from '../lib/cpu-stall.js';

const RUNS = 3;
const TOPIC = 'http://source.test/changes';
// Raw on purpose: the payload is sized to the byte around a filler under test.
const HEAD =
  '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">' +
  '<rs:md capability="change-notification" from="2026-01-01T00:00:00Z" until="2026-01-01T00:00:01Z"/>';
const ENTRY =
  '<url><loc>http://source.test/r/€0000001</loc><rs:md change="updated" datetime="2026-01-01T00:00:00Z"/></url>\n';

function bodyOf(bytes: number, filler: string): Buffer {
  const n = Math.floor((bytes - HEAD.length - ENTRY.length - 20) / Buffer.byteLength(filler));
  return Buffer.from(`${HEAD}${ENTRY}${filler.repeat(n)}</urlset>\n`);
}

/** The stall rows of one engine: the same valid 16 MiB publish, three times, into a fresh hub. */
async function measureEngine(
  ctx: BenchContext,
  engine: string,
  db: string,
  body: Buffer,
  whole: number,
): Promise<BenchRow[]> {
  const hub = await startHub({
    host: '127.0.0.1',
    port: 0,
    dbFile: db,
    logLevel: 'silent',
    maxBodyBytes: 16 * 1024 * 1024,
  });
  const rows: BenchRow[] = [];
  try {
    const { token } = await hub.addSource('bench', ['http://source.test/']);
    const stalls: number[] = [];
    const cpuStalls: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const h = monitorEventLoopDelay({ resolution: 1 });
      h.enable();
      const cpu = watchCpuStall();
      const res = await request(hub.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/xml',
          link: `<${TOPIC}>; rel="self", <${hub.url}>; rel="hub"`,
          authorization: `Bearer ${token}`,
        },
        body,
      });
      await res.body.text();
      h.disable();
      const cpuStall = cpu?.stop();
      if (cpuStall !== undefined) cpuStalls.push(cpuStall);
      if (res.statusCode !== 200)
        throw new Error(`${engine}: answered ${res.statusCode}, expected 200`);
      stalls.push(h.max / 1e6);
    }
    stalls.sort((a, b) => a - b);
    cpuStalls.sort((a, b) => a - b);
    const median = stalls[Math.floor(stalls.length / 2)]!;
    const mib = (body.length / 2 ** 20).toFixed(1);
    ctx.log(
      `${engine}, valid notification, ${mib} MiB: longest stall ${stalls.map((s) => s.toFixed(1)).join('/')} ms, main-thread CPU ${cpuStalls.map((s) => s.toFixed(1)).join('/')} ms; one-piece parse ${whole.toFixed(0)} ms`,
    );
    rows.push({
      scenario: 'publish stall',
      figure: `${engine}: longest event-loop stall of the hub during one publish, valid notification (200)`,
      value: median,
      unit: 'ms',
      range: `${stalls[0]!.toFixed(1)}-${stalls[stalls.length - 1]!.toFixed(1)}, n=${RUNS}`,
      baseline: { label: 'the same body parsed in one piece', value: whole, unit: 'ms' },
      ratio: median / whole,
      target: 'tens of ms (ratio well below 1)',
      note: `${mib} MiB body; the stall includes the hub's own work (body read, store, fan-out)`,
    });
    if (cpuStalls.length === RUNS) {
      const cpuMedian = cpuStalls[Math.floor(RUNS / 2)]!;
      rows.push({
        scenario: 'publish stall',
        figure: `${engine}: longest main-thread CPU time between two event-loop turns during one publish, valid notification (200)`,
        value: cpuMedian,
        unit: 'ms',
        range: `${cpuStalls[0]!.toFixed(1)}-${cpuStalls[RUNS - 1]!.toFixed(1)}, n=${RUNS}`,
        baseline: { label: 'the same body parsed in one piece', value: whole, unit: 'ms' },
        ratio: cpuMedian / whole,
        target: 'under 30 ms',
        note: 'CPU time of the thread (schedstat), so time the process was not scheduled is not counted',
      });
    }
  } finally {
    await hub.close();
  }
  return rows;
}

const scenario: BenchScenario = {
  name: 'publish-stall',
  async run(ctx: BenchContext): Promise<BenchRow[]> {
    const size = Math.round(16 * 1024 * 1024 * ctx.scale);
    // (Refusals of hostile bodies are timed per case by the "hostile" scenario.)
    const body = bodyOf(size, ENTRY);
    let whole = Number.POSITIVE_INFINITY;
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      parseChangeNotification(body);
      whole = Math.min(whole, performance.now() - t);
    }
    const rows = await measureEngine(ctx, 'SQLite', join(ctx.tmpDir, 'hub.db'), body, whole);
    // PostgreSQL stores a large body in parts too, a statement each (hub/src/store/body-parts.ts).
    const pg = await startPostgres({ fsync: true });
    if ('error' in pg) {
      ctx.log(`PostgreSQL arm skipped: ${pg.error}`);
      return rows;
    }
    try {
      rows.push(
        ...(await measureEngine(
          ctx,
          'PostgreSQL',
          createDatabase(pg.adminUrl, 'stall'),
          body,
          whole,
        )),
      );
    } finally {
      pg.stop();
    }
    return rows;
  },
};

export default scenario;
