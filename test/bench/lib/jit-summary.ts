// How much compiling V8 did in each of a hub's windows (lib/measure.ts noteWindow), from its
// `--trace-opt --trace-deopt` output: the optimizations it finished, the milliseconds they took
// (the three phases the trace prints, mostly on V8's compiler thread, which competes for the same
// two cores), and the deoptimizations. A window that still compiles is one measured before the
// process reached its steady state (measure.ts warmUp).
// Usage:
//   BENCH_WINDOWS=/tmp/w.jsonl BENCH_HUB_STDOUT=/tmp/hub-out \
//     BENCH_HUB_NODE_FLAGS='--trace-opt --trace-deopt' pnpm bench hub.ts
//   node --import tsx test/bench/lib/jit-summary.ts /tmp/hub-out.hub /tmp/w.jsonl [arm]
// `arm` (default hub) picks the windows: "hub" the fan-out bursts, "hub publishes" the publish rounds.
import { readFileSync } from 'node:fs';
import type { BenchWindow } from './measure.js';

const [traceFile, windowsFile, arm = 'hub'] = process.argv.slice(2);
if (!traceFile || !windowsFile) {
  process.stderr.write('usage: jit-summary.ts <hub stdout, stamped> <windows.jsonl> [arm]\n');
  process.exit(2);
}

interface TraceEvent {
  readonly at: number;
  /** Milliseconds an optimization took, or undefined for a deoptimization. */
  readonly ms: number | undefined;
}

const events: TraceEvent[] = [];
for (const line of readFileSync(traceFile, 'latin1').split('\n')) {
  const space = line.indexOf(' ');
  const at = Number(line.slice(0, space));
  const took = /took ([0-9.]+), ([0-9.]+), ([0-9.]+) ms/.exec(line);
  if (took) events.push({ at, ms: Number(took[1]) + Number(took[2]) + Number(took[3]) });
  else if (line.includes('[bailout')) events.push({ at, ms: undefined });
}

const rows = [
  '| window | n | in flight | operations | optimized | ms compiling | µs per operation | deoptimized |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
];
for (const line of readFileSync(windowsFile, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const w = JSON.parse(line) as BenchWindow;
  if (w.arm !== arm) continue;
  // The trace is stamped when the bench read it: a line may arrive a little after its window.
  const inside = events.filter((e) => e.at >= w.start && e.at <= w.end + 50);
  const compiled = inside.filter((e) => e.ms !== undefined);
  const ms = compiled.reduce((sum, e) => sum + e.ms!, 0);
  rows.push(
    `| ${w.warmUp ? 'warm-up' : 'measured'} | ${w.n} | ${w.concurrency ?? ''} | ${w.ops} | ` +
      `${compiled.length} | ${ms.toFixed(1)} | ${((ms * 1000) / w.ops).toFixed(2)} | ` +
      `${inside.length - compiled.length} |`,
  );
}
process.stdout.write(`${rows.join('\n')}\n`);
