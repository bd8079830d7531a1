// Hostile documents: the worst parse time per case, for both readers (parseDocument on the whole
// input, streamDocument over 64 KiB chunks), on the same inputs the pass/fail table uses
// (test/src/harness/hostile-documents.ts, which asserts only the refusal codes). The baseline, measured in
// the same run, is the time to parse a valid notification of the same byte size: a refusal should
// cost no more than reading that many honest bytes (ratio <= 1), and never grow with the square of
// the input as the 30,000-deep nesting did before the limits (6 s).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  parseChangeNotification,
  parseChangeNotificationInSlices,
  parseDocument,
  streamDocument,
} from '@rsnotify/shared';
import { HOSTILE_DOCUMENTS } from '../../src/harness/hostile-documents.js';
import type { BenchContext, BenchRow, BenchScenario } from '../types.js';

const RUNS = 3;
const NS =
  'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"';

// Raw on purpose: a document of a given byte size, entry by entry.
function validOfSize(bytes: number): string {
  const entry =
    '<url><loc>http://a.test/resource/0000001</loc><rs:md change="updated" datetime="2026-01-01T00:00:00Z"/></url>\n';
  const head = `<urlset ${NS}><rs:md capability="change-notification" from="2026-01-01T00:00:00Z" until="2026-01-01T00:00:01Z"/>`;
  return `${head}${entry.repeat(Math.max(1, Math.floor(bytes / entry.length)))}</urlset>`;
}

function timeSync(fn: () => void): number {
  const t = performance.now();
  try {
    fn();
  } catch {
    /* the refusal is the point */
  }
  return performance.now() - t;
}

async function timeStream(
  input: string | Buffer,
  limits?: Readonly<Record<string, number>>,
): Promise<number> {
  const bytes = typeof input === 'string' ? Buffer.from(input) : input;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for (let off = 0; off < bytes.length; off += 64 * 1024)
      yield bytes.subarray(off, off + 64 * 1024);
  }
  const t = performance.now();
  try {
    for await (const _ of streamDocument(chunks(), limits ? { limits } : {})) {
      /* drain */
    }
  } catch {
    /* refused */
  }
  return performance.now() - t;
}

const scenario: BenchScenario = {
  name: 'hostile',
  async run(ctx: BenchContext): Promise<BenchRow[]> {
    const rows: BenchRow[] = [];
    for (const doc of HOSTILE_DOCUMENTS) {
      const input = doc.make();
      const size = typeof input === 'string' ? Buffer.byteLength(input) : input.length;
      const options = doc.limits ? { limits: doc.limits } : {};
      let worst = 0;
      for (let i = 0; i < RUNS; i++) {
        worst = Math.max(
          worst,
          timeSync(() => parseDocument(input, options)),
          await timeStream(input, doc.limits),
        );
      }
      const valid = validOfSize(size);
      let baseline = Number.POSITIVE_INFINITY;
      for (let i = 0; i < RUNS; i++)
        baseline = Math.min(
          baseline,
          timeSync(() => parseDocument(valid)),
        );
      ctx.log(
        `${doc.name}: worst ${worst.toFixed(1)} ms (${doc.code}), valid same size ${baseline.toFixed(1)} ms`,
      );
      rows.push({
        scenario: 'hostile',
        figure: `worst refusal time, ${doc.name} (${doc.code})`,
        value: worst,
        unit: 'ms',
        baseline: {
          label: `valid notification of ${(size / 1024).toFixed(0)} KiB`,
          value: baseline,
          unit: 'ms',
        },
        ratio: worst / Math.max(baseline, 0.001),
        target: 'ratio <= 1, or < 50 ms',
        note: doc.covers,
      });
    }
    // The hub parses publish bodies in slices: the longest event-loop stall while a valid 16 MiB
    // notification is parsed that way, against the time the same parse takes in one go.
    const big = Buffer.from(validOfSize(16 * 1024 * 1024 * ctx.scale));
    let whole = Number.POSITIVE_INFINITY;
    for (let i = 0; i < RUNS; i++)
      whole = Math.min(
        whole,
        timeSync(() => parseChangeNotification(big)),
      );
    const h = monitorEventLoopDelay({ resolution: 1 });
    h.enable();
    await parseChangeNotificationInSlices(big);
    h.disable();
    const stall = h.max / 1e6;
    ctx.log(
      `sliced parse of ${(big.length / 2 ** 20).toFixed(0)} MiB: longest stall ${stall.toFixed(1)} ms, whole parse ${whole.toFixed(0)} ms`,
    );
    rows.push({
      scenario: 'hostile',
      figure: 'longest event-loop stall, sliced parse of a valid max-size publish',
      value: stall,
      unit: 'ms',
      baseline: { label: 'the same parse in one go', value: whole, unit: 'ms' },
      ratio: stall / whole,
      target: 'tens of ms',
    });
    return rows;
  },
};

export default scenario;
