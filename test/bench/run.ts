// `pnpm bench`: runs every scenario in bench/scenarios/, prints one table (scenario, figure, value,
// baseline measured in the same run, ratio, target) with the machine, and writes
// bench/results/latest.md. `pnpm bench --quick` runs a scaled-down smoke; `pnpm bench parse hub`
// runs only scenarios whose name contains one of the words. BENCH_SCALE=5 makes each scenario's
// batches 5x longer (a fan-out burst of 100,000 deliveries instead of 20,000): whether a figure
// holds when work the hub defers (its cursor batches every 100 ms) falls inside the burst.
import { mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchRow, BenchScenario } from './types.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const filters = args.filter((a) => !a.startsWith('--'));

function fmt(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return '';
  if (Math.abs(n) >= 1000) return Math.round(n).toLocaleString('en-US');
  if (Math.abs(n) >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

function baselineCell(r: BenchRow): string {
  const b = r.baseline;
  if (!b) return '';
  const extra = [
    b.range ? `range ${b.range}` : '',
    b.cpuUsPerOp === undefined ? '' : `${fmt(b.cpuUsPerOp)} µs CPU/op`,
  ].filter(Boolean);
  return `${b.label}: ${fmt(b.value)} ${b.unit}${extra.length ? ` (${extra.join('; ')})` : ''}`;
}

async function main(): Promise<void> {
  // The load when the run started: on a shared machine it says how far absolute figures can be trusted.
  const loadAtStart = loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  const dir = join(here, 'scenarios');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort();
  const rows: BenchRow[] = [];
  for (const file of files) {
    const mod = (await import(pathToFileURL(join(dir, file)).href)) as {
      default?: BenchScenario;
      scenarios?: BenchScenario[];
    };
    const scenarios = mod.scenarios ?? (mod.default ? [mod.default] : []);
    for (const scenario of scenarios) {
      if (filters.length > 0 && !filters.some((f) => scenario.name.includes(f) || file.includes(f)))
        continue;
      const tmp = mkdtempSync(join(tmpdir(), 'rsnotify-bench-'));
      const started = Date.now();
      process.stderr.write(`bench: ${scenario.name} ...\n`);
      try {
        const out = await scenario.run({
          tmpDir: tmp,
          scale: quick ? 0.1 : Number(process.env.BENCH_SCALE ?? 1),
          log: (m) => process.stderr.write(`  ${m}\n`),
        });
        rows.push(...out);
      } catch (err) {
        rows.push({
          scenario: scenario.name,
          figure: 'FAILED',
          value: NaN,
          unit: '',
          note: String((err as Error)?.stack ?? err).split('\n')[0],
        });
      } finally {
        rmSync(tmp, { recursive: true, force: true });
        process.stderr.write(
          `bench: ${scenario.name} done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
        );
      }
    }
  }
  const machine = `${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown cpu'}), Node ${process.version}, ${process.platform}/${process.arch}${quick ? ', QUICK run (scale 0.1)' : ''}, load average at start ${loadAtStart}`;
  const header =
    '| scenario | figure | value (median) | min-max | unit | CPU/op µs | peak RSS MiB | baseline (same run, interleaved) | ratio | target | note |';
  const lines = [
    `# rsnotify benchmarks`,
    '',
    `Machine: ${machine}. Run at ${new Date().toISOString()}.`,
    '',
    header,
    '|---|---|---:|---|---|---:|---:|---|---:|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${r.figure} | ${fmt(r.value)} | ${r.range ?? ''} | ${r.unit} | ${fmt(r.cpuUsPerOp)} | ${fmt(r.peakRssMiB)} | ${baselineCell(r)} | ${r.ratio === undefined ? '' : fmt(r.ratio)} | ${r.target ?? ''} | ${r.note ?? ''} |`,
    ),
  ];
  const table = lines.join('\n') + '\n';
  process.stdout.write(table);
  mkdirSync(join(here, 'results'), { recursive: true });
  // Only a full, unfiltered run may replace latest.md; a filtered one goes to partial.md.
  const out = quick ? 'quick.md' : filters.length > 0 ? 'partial.md' : 'latest.md';
  writeFileSync(join(here, 'results', out), table);
  if (rows.some((r) => r.figure === 'FAILED')) process.exitCode = 1;
}

await main();
