// Reads what lib/inflight-probe.ts sampled (BENCH_INFLIGHT=<dir> pnpm bench hub) and prints, for
// each measured window (lib/measure.ts noteWindow), the measured process's deliveries in flight and
// its event-loop utilization: mean `open` (created, queued in undici or on a socket), mean `wire` (on
// a socket), the share of samples with fewer than 8 on the wire, mean ELU, and mean `wire` per tenth
// of the window (ramp-up and tail). Warm-up windows (measure.ts warmUp) are marked so.
// Usage: node --import tsx test/bench/lib/inflight-summary.ts <dir>
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchWindow } from './measure.js';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: inflight-summary.ts <dir>\n');
  process.exit(2);
}

const samples = new Map<string, number[][]>();
function samplesOf(arm: string): number[][] {
  let s = samples.get(arm);
  if (!s) {
    const file = join(dir!, `${arm}.csv`);
    s = existsSync(file)
      ? readFileSync(file, 'latin1')
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split(',').map(Number))
      : [];
    samples.set(arm, s);
  }
  return s;
}

const mean = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const windows = readFileSync(join(dir, 'windows.jsonl'), 'latin1')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as BenchWindow);

const rows: string[] = [
  '| arm | n | conc | s | open | wire | wire<8 | ELU | publish ends at | wire per tenth of the window |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
];
for (const w of windows) {
  const inside = samplesOf(w.arm).filter((s) => s[0]! >= w.start && s[0]! <= w.end);
  const len = w.end - w.start;
  const tenths = Array.from({ length: 10 }, (_, i) =>
    mean(
      inside
        .filter((s) => s[0]! >= w.start + (i * len) / 10 && s[0]! < w.start + ((i + 1) * len) / 10)
        .map((s) => s[2]!),
    ).toFixed(0),
  );
  rows.push(
    `| ${w.arm}${w.warmUp ? ' (warm-up)' : ''} | ${w.n} | ${w.concurrency ?? ''} | ${(len / 1000).toFixed(2)} | ` +
      `${mean(inside.map((s) => s[1]!)).toFixed(1)} | ${mean(inside.map((s) => s[2]!)).toFixed(1)} | ` +
      `${((100 * inside.filter((s) => s[2]! < 8).length) / Math.max(1, inside.length)).toFixed(0)} % | ` +
      `${mean(inside.map((s) => s[3]!)).toFixed(2)} | ` +
      `${w.published ? `${(((w.published - w.start) / len) * 100).toFixed(0)} %` : ''} | ${tenths.join(' ')} |`,
  );
}
process.stdout.write(`${rows.join('\n')}\n`);
