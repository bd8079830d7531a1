// Scheduler benchmark: the hub's delivery scheduler alone (hub/src/delivery: cursors, per-origin
// budget and breaker, body cache, delivery metrics), per delivery, against a bare FIFO driving the
// same sender. A burst as in the hub fan-out bench (1,000 subscriptions on 4 origins, 20
// notifications) with a sender that answers on the next turn of the event loop, so that the budget
// parks and wakes as at a real fan-out; no sockets and no database, so the figure is the stage's
// own CPU, which the fan-out bench's CPU per delivery holds among undici's and the kernel's. Every
// arm and round runs in a process of its own on the build in dist/ (lib/scheduler-child.ts).
// BENCH_HUB_BASE=<checkout> adds that checkout's scheduler as an arm of the same rounds.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ensureBuilt, repoRoot } from '../lib/hub-processes.js';
import { describeRange, spread } from '../lib/measure.js';
import type { BenchContext, BenchRow, BenchScenario } from '../types.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS) || 5;
const execFileAsync = promisify(execFile);

interface Arm {
  readonly label: string;
  readonly kind: 'bare' | 'scheduler';
  readonly root: string;
}

/** CPU µs per delivery, the median of `bursts` bursts in a child process of its own. */
async function measure(arm: Arm, bursts: number): Promise<number> {
  const { stdout } = await execFileAsync(
    process.execPath,
    [
      '--conditions=@rsnotify/source',
      '--import',
      'tsx',
      'test/bench/lib/scheduler-child.ts',
      arm.kind,
      arm.root,
      String(bursts),
    ],
    { cwd: repoRoot },
  );
  return Number(stdout);
}

async function run(ctx: BenchContext): Promise<BenchRow[]> {
  const base = process.env.BENCH_HUB_BASE;
  const arms: Arm[] = [
    { label: 'bare FIFO, 256 in flight', kind: 'bare', root: repoRoot },
    { label: 'DeliveryScheduler', kind: 'scheduler', root: repoRoot },
    ...(base
      ? [{ label: 'DeliveryScheduler (BENCH_HUB_BASE)', kind: 'scheduler' as const, root: base }]
      : []),
  ];
  for (const root of new Set(arms.map((a) => a.root))) ensureBuilt(root);
  const bursts = Math.max(2, Math.round(6 * ctx.scale));
  const perArm: number[][] = arms.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < arms.length; k++) {
      const a = (round + k) % arms.length;
      perArm[a]!.push(await measure(arms[a]!, bursts));
    }
  }
  const median = (xs: readonly number[]): number => spread(xs).median;
  const bare = perArm[0]!;
  ctx.log(arms.map((arm, a) => `${arm.label} ${median(perArm[a]!).toFixed(2)} µs`).join(', '));
  return arms.slice(1).map((arm, i) => {
    const xs = perArm[i + 1]!;
    return {
      scenario: 'hub scheduler',
      figure: `${arm.label}: CPU per delivery, 1,000 subscriptions on 4 origins, 20 notifications`,
      value: median(xs),
      range: describeRange(spread(xs)),
      unit: 'µs CPU/delivery',
      cpuUsPerOp: median(xs),
      baseline: {
        label: 'bare FIFO driving the same sender',
        value: median(bare),
        unit: 'µs CPU/delivery',
        range: describeRange(spread(bare)),
        cpuUsPerOp: median(bare),
      },
      note: `a process per arm and round (the build in dist/): 2 bursts to warm up, then the median of ${bursts}; a sender that answers on the next turn; ${ROUNDS} interleaved rounds, median; the scheduler's own work is this minus the bare FIFO's`,
    };
  });
}

const scenario: BenchScenario = { name: 'hub scheduler', run };
export default scenario;
