// Notification check benchmark: what shared's layer costs per document on the hub's publish path
// (checkChangeNotificationInSlices, RT-7: checked before the 200) and the subscriber's intake
// (parseChangeNotification), against a bare saxes parse of the same bytes (plain mode, which the full
// reader builds on; UTF-8 decode included, no handlers). The 5-entry body is read by the fast path
// (shared/src/xml/common-subset.ts), which does not use saxes: its ratio can be below 1; the 1,000-entry
// one (over 64 Ki characters) is read by the full reader, for which bare saxes is the ceiling. Every batch runs in a process
// of its own on the build in dist/ (lib/check-child.ts): arms that shared one process slowed each
// other 2-4x through V8's feedback for saxes's code. Bodies: the hub bench's 5-entry notification (the
// one every publish arm sends) and a 1,000-entry one of the same shape. Figures are CPU time per
// document (process.cpuUsage over a batch), the median of the rounds; each round starts with the next
// arm so no arm always runs first. BENCH_CHECK_BASE=<checkout> adds that checkout's shared build
// (its dist/, e.g. a built worktree of main) as two more arms of the same rounds.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureBuilt, notification, repoRoot } from '../lib/hub-processes.js';
import { describeRange, spread } from '../lib/measure.js';
import type { BenchContext, BenchRow, BenchScenario } from '../types.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS) || 5;
const execFileAsync = promisify(execFile);

interface Arm {
  readonly label: string;
  /** check-child.ts's arm, and the shared build it loads. */
  readonly kind: 'bare' | 'check' | 'parse';
  readonly sharedIndex: string;
}

function arms(): Arm[] {
  const own = join(repoRoot, 'shared/dist/index.js');
  const readers = (sharedIndex: string, suffix: string): Arm[] => [
    { label: `checkChangeNotificationInSlices${suffix}`, kind: 'check', sharedIndex },
    { label: `parseChangeNotification${suffix}`, kind: 'parse', sharedIndex },
  ];
  const all: Arm[] = [{ label: 'bare saxes', kind: 'bare', sharedIndex: own }, ...readers(own, '')];
  const base = process.env.BENCH_CHECK_BASE;
  if (base) all.push(...readers(join(base, 'shared/dist/index.js'), ' (BENCH_CHECK_BASE)'));
  return all;
}

/** CPU µs per document over `n` documents, in a child process of its own (lib/check-child.ts). */
async function batch(arm: Arm, entries: number, n: number): Promise<number> {
  const { stdout } = await execFileAsync(
    process.execPath,
    [
      '--conditions=@rsnotify/source',
      '--import',
      'tsx',
      'test/bench/lib/check-child.ts',
      arm.kind,
      arm.sharedIndex,
      String(entries),
      String(n),
    ],
    { cwd: repoRoot },
  );
  return Number(stdout);
}

const median = (xs: readonly number[]): number => spread(xs).median;
const range = (xs: readonly number[]): string => describeRange(spread(xs));

async function measureBody(
  ctx: BenchContext,
  ARMS: readonly Arm[],
  entries: number,
  n: number,
): Promise<BenchRow[]> {
  const body = notification(1, entries);
  const perArm: number[][] = ARMS.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < ARMS.length; k++) {
      const a = (round + k) % ARMS.length;
      perArm[a]!.push(await batch(ARMS[a]!, entries, n));
    }
  }
  const bare = perArm[0]!;
  ctx.log(
    `${entries} entries (${body.length} bytes): ` +
      ARMS.map((arm, a) => `${arm.label} ${median(perArm[a]!).toFixed(1)} µs`).join(', '),
  );
  return ARMS.slice(1).map((arm, i) => {
    const xs = perArm[i + 1]!;
    return {
      scenario: 'notification check',
      figure: `${arm.label}, ${entries}-entry notification (${body.length.toLocaleString('en-US')} bytes)`,
      value: median(xs),
      range: range(xs),
      unit: 'µs CPU/doc',
      cpuUsPerOp: median(xs),
      baseline: {
        label: 'bare saxes (plain mode, decode included)',
        value: median(bare),
        unit: 'µs CPU/doc',
        range: range(bare),
        cpuUsPerOp: median(bare),
      },
      ratio: median(xs) / median(bare),
      note: `a process per arm and round (the build in dist/): ${n} documents to warm up, then the median of 3 batches of ${n}; ${ROUNDS} interleaved rounds, median; ratio = this / bare saxes (lower is better)`,
    };
  });
}

async function run(ctx: BenchContext): Promise<BenchRow[]> {
  const scale = ctx.scale;
  const all = arms();
  // The children load the build: brought up to date first, so a stale dist/ is never measured.
  for (const root of new Set(all.map((arm) => join(arm.sharedIndex, '../../..'))))
    ensureBuilt(root);
  return [
    ...(await measureBody(ctx, all, 5, Math.max(200, Math.round(3000 * scale)))),
    ...(await measureBody(ctx, all, 1000, Math.max(5, Math.round(30 * scale)))),
  ];
}

const scenario: BenchScenario = { name: 'notification check', run };
export default scenario;
