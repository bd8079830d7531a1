// The longest main-thread CPU slice of a subscriber while it takes one valid, signed notification
// near the largest it accepts (maxNotificationBytes, 10 MiB) and applies it: ~70,000 `deleted`
// entries for resources the mirror never had, so applying them needs no I/O and every cost left is
// CPU on the event loop (the signature, the durable insert, the parse, the ordering, the apply).
// The subscriber runs in this process, against a fake hub and the Source simulator (parties outside
// the project, real HTTP); the notification continues its position, so it is applied at once. The
// slice is the CPU time the thread spent between two ticks of a 1 ms timer (lib/cpu-stall.ts), from
// the first byte sent until the notification is applied: what deliveries, renewals and the status
// page wait for meanwhile. The ceiling it is judged against, measured in the same run, is the same
// body parsed in one piece. Then the same with deletes of URIs the path mapping refuses (an
// unescaped `%`): every change fails, and is recorded and logged (the daemon's logger at `warn`,
// into a file) without holding the position.
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { request } from 'undici';
import { parseChangeNotification, signatureHeader } from '@rsnotify/shared';
import { createLogger, startSubscriber } from '@rsnotify/subscriber';
import { startFakeHub } from '../../e2e/subscriber-fake-hub.js';
import { subscriberConfig } from '../../e2e/subscriber-helpers.js';
import { startSourceSimulator } from '../../src/source-simulator/index.js';
import { waitFor } from '../../src/harness/index.js';
import { watchCpuStall } from '../lib/cpu-stall.js';
import { describeRange, spread } from '../lib/measure.js';
import type { BenchContext, BenchRow, BenchScenario } from '../types.js';

const RUNS = 3;
// Not counted: the first notification also pays for code compiled on first use.
const WARM_UP = 1;

const at = (n: number): string =>
  new Date(Date.UTC(2030, 0, 1) + n * 1000).toISOString().replace('.000Z', 'Z');

/**
 * What the notification's deletes are: resources the mirror never had (`gone`), or URIs the path
 * mapping refuses (`refused`: a stray '%' in a segment, a `loc` left unescaped), each a failed
 * change that is recorded and logged but cannot hold the position.
 */
type Deletes = 'gone' | 'refused';

/** A notification of `bytes` or just under, the interval [at(i), at(i + 1)), deletes only. */
function notificationOf(
  bytes: number,
  i: number,
  base: string,
  deletes: Deletes,
): { body: Buffer; entries: number } {
  const dir = deletes === 'gone' ? 'gone' : '100%';
  // Raw on purpose: the payload is sized to the byte.
  const head = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"><rs:md capability="change-notification" from="${at(i)}" until="${at(i + 1)}"/>\n`;
  const entry = (k: number): string =>
    `<url><loc>${base}/resources/${dir}/${i}/${k.toString().padStart(7, '0')}</loc><rs:md change="deleted" datetime="${at(i)}"/></url>\n`;
  const tail = '</urlset>\n';
  const n = Math.floor((bytes - head.length - tail.length) / Buffer.byteLength(entry(0)));
  const parts = [head];
  for (let k = 0; k < n; k++) parts.push(entry(k));
  parts.push(tail);
  return { body: Buffer.from(parts.join('')), entries: n };
}

interface Measured {
  readonly cpuStalls: number[];
  readonly loopStalls: number[];
  readonly whole: number[];
  readonly logBytes: number[];
  readonly entries: number;
  readonly bytes: number;
}

const scenario: BenchScenario = {
  name: 'subscriber-stall',
  async run(ctx: BenchContext): Promise<BenchRow[]> {
    const size = Math.round(9.5 * 1024 * 1024 * ctx.scale);
    const hub = await startFakeHub();
    const sim = await startSourceSimulator({ seed: 1, initialResources: 5, hubUrl: hub.url });
    const ws = {
      dir: ctx.tmpDir,
      dataDir: join(ctx.tmpDir, 'data'),
      mirrorDir: join(ctx.tmpDir, 'mirror'),
      remove: async () => undefined,
    };
    await mkdir(ws.dataDir, { recursive: true });
    // The daemon's own logger at `warn`, into a file: the lines a failed change writes are part of
    // what its apply costs.
    const logFile = createWriteStream(join(ctx.tmpDir, 'subscriber.log'));
    let logBytes = 0;
    const logger = createLogger('warn', {
      write(line: string) {
        logBytes += Buffer.byteLength(line);
        logFile.write(line);
      },
    });
    const sub = await startSubscriber(
      { ...subscriberConfig(ws, sim.wellKnownUrl, { baseline: 'none' }), logLevel: 'warn' },
      { logger },
    );
    let next = 0; // the next notification's interval: [at(next), at(next + 1))
    try {
      const active = await waitFor(() => hub.subscriptions.find((s) => s.state === 'active'), {
        what: 'verified subscription',
      });
      const measure = async (deletes: Deletes): Promise<Measured> => {
        const out: Measured = {
          cpuStalls: [],
          loopStalls: [],
          whole: [],
          logBytes: [],
          entries: 0,
          bytes: 0,
        };
        let entries = 0;
        let bytes = 0;
        for (let run = 0; run < WARM_UP + RUNS; run++) {
          const i = next++;
          const n = notificationOf(size, i, sim.baseUrl, deletes);
          entries = n.entries;
          bytes = n.body.length;
          const signature = signatureHeader('sha256', active.secret!, n.body);
          const t0 = performance.now();
          parseChangeNotification(n.body);
          const parsedWhole = performance.now() - t0;
          const counted = run >= WARM_UP;
          if (counted) out.whole.push(parsedWhole);
          const loop = monitorEventLoopDelay({ resolution: 1 });
          loop.enable();
          const cpu = watchCpuStall();
          const [before] = await sub.status();
          const logged = logBytes;
          const started = performance.now();
          const res = await request(active.callback, {
            method: 'POST',
            headers: { 'content-type': 'application/xml', 'x-hub-signature': signature },
            body: n.body,
          });
          await res.body.text();
          const answered = performance.now() - started;
          if (res.statusCode !== 202) throw new Error(`answered ${res.statusCode}, expected 202`);
          await waitFor(
            async () => {
              // The counts are read from the store: the apply's records committed too. A refused
              // change counts as an error, and cannot hold the position.
              const [s] = await sub.status();
              return (
                s?.syncedUntil === at(i + 1) &&
                s.buffered === 0 &&
                s.changesApplied + s.errors >= before!.changesApplied + before!.errors + n.entries
              );
            },
            { what: `notification ${i} applied`, timeoutMs: 120_000, intervalMs: 5 },
          );
          const applied = performance.now() - started;
          loop.disable();
          const cpuStall = cpu?.stop();
          if (cpuStall !== undefined && counted) out.cpuStalls.push(cpuStall);
          if (counted) out.loopStalls.push(loop.max / 1e6);
          if (counted) out.logBytes.push(logBytes - logged);
          ctx.log(
            `notification ${i}${counted ? '' : ' (warm-up)'}: ${(bytes / 2 ** 20).toFixed(1)} MiB, ${entries} deletes (${deletes}): 202 after ${answered.toFixed(0)} ms, applied after ${applied.toFixed(0)} ms; longest CPU slice ${cpuStall?.toFixed(1) ?? '?'} ms, loop stall ${(loop.max / 1e6).toFixed(1)} ms; ${logBytes - logged} bytes logged; one-piece parse ${parsedWhole.toFixed(0)} ms`,
          );
        }
        return { ...out, entries, bytes };
      };
      return [
        ...rowsOf(await measure('gone'), 'gone'),
        ...rowsOf(await measure('refused'), 'refused'),
      ];
    } finally {
      await sub.close();
      await sim.close();
      await hub.close();
      await new Promise<void>((resolve) => logFile.end(resolve));
    }
  },
};

function rowsOf(m: Measured, deletes: Deletes): BenchRow[] {
  const [parseMs, loopMs, cpuMs] = [m.whole, m.loopStalls, m.cpuStalls].map(spread);
  const baseline = {
    label: 'the same body parsed in one piece',
    value: parseMs!.median,
    unit: 'ms',
    range: describeRange(parseMs!),
  };
  const mib = (m.bytes / 2 ** 20).toFixed(1);
  const what =
    deletes === 'gone'
      ? `${m.entries.toLocaleString('en-US')} deletes`
      : `${m.entries.toLocaleString('en-US')} deletes the path mapping refuses`;
  const rows: BenchRow[] = [
    {
      scenario: 'subscriber stall',
      figure: `longest event-loop stall of the subscriber while it takes and applies one ${mib} MiB notification (${what})`,
      value: loopMs!.median,
      unit: 'ms',
      range: describeRange(loopMs!),
      baseline,
      ratio: loopMs!.median / baseline.value,
      target: 'tens of ms (ratio well below 1)',
      note: `includes time the process was not scheduled (the driver shares it); ${Math.max(...m.logBytes).toLocaleString('en-US')} bytes of log lines at most per notification`,
    },
  ];
  if (m.cpuStalls.length === RUNS)
    rows.push({
      scenario: 'subscriber stall',
      figure: `longest main-thread CPU time between two event-loop turns while it takes and applies that notification`,
      value: cpuMs!.median,
      unit: 'ms',
      range: describeRange(cpuMs!),
      baseline,
      ratio: cpuMs!.median / baseline.value,
      target: 'under 30 ms',
      note:
        deletes === 'gone'
          ? 'CPU time of the thread (schedstat): signature, durable insert, parse, ordering and apply, the driver idle meanwhile'
          : 'the same, each change failing in the path mapping and recorded as failed (events, metrics, log lines)',
    });
  return rows;
}

export default scenario;
