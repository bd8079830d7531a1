// Notification check benchmark: what shared's layer costs per document on the hub's publish path
// (checkChangeNotificationInSlices, RT-7: checked before the 200) and the subscriber's intake
// (parseChangeNotification), against a bare saxes parse of the same bytes (plain mode, which the
// reader builds on; UTF-8 decode included, no handlers) as the ceiling, in the same process and the
// same rounds. Arms that used saxes in both modes from one copy of it slowed each other 2-4x (V8's
// feedback for saxes's shared code), so every arm here runs saxes in plain mode. Bodies: the hub
// bench's 5-entry notification (the one every publish arm sends) and a 1,000-entry one of the same
// shape. Figures are CPU time per document (process.cpuUsage over a batch), the median of the rounds;
// each round starts with the next arm so no arm always runs first. BENCH_CHECK_BASE=<checkout> adds
// that checkout's shared (its sources, e.g. a worktree of main) as two more arms of the same rounds;
// they load that checkout's own copy of saxes, whatever mode it reads in.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SaxesParser } from 'saxes';
import * as shared from '@rsnotify/shared';
import { notification } from '../lib/hub-processes.js';
import type { BenchContext, BenchRow, BenchScenario } from '../types.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS) || 7;

interface Arm {
  readonly label: string;
  run(body: Buffer): Promise<void> | void;
}

type Readers = Pick<typeof shared, 'checkChangeNotificationInSlices' | 'parseChangeNotification'>;

const BARE: Arm = {
  label: 'bare saxes',
  run(body) {
    const parser = new SaxesParser({ xmlns: false });
    parser.write(body.toString('utf8'));
    parser.close();
  },
};

function readerArms(readers: Readers, suffix: string): Arm[] {
  return [
    {
      label: `checkChangeNotificationInSlices${suffix}`,
      run: (body) => readers.checkChangeNotificationInSlices(body),
    },
    {
      label: `parseChangeNotification${suffix}`,
      run(body) {
        readers.parseChangeNotification(body);
      },
    },
  ];
}

async function arms(): Promise<Arm[]> {
  const base = process.env.BENCH_CHECK_BASE;
  if (!base) return [BARE, ...readerArms(shared, '')];
  const url = pathToFileURL(join(base, 'shared/src/index.ts')).href;
  const baseShared = (await import(url)) as Readers;
  return [BARE, ...readerArms(shared, ''), ...readerArms(baseShared, ' (BENCH_CHECK_BASE)')];
}

/** CPU µs per document over `n` runs (user + system of this process). */
async function batch(arm: Arm, body: Buffer, n: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) await arm.run(body);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / n;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const range = (xs: number[]): string =>
  `${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)}, n=${xs.length}`;

async function measureBody(
  ctx: BenchContext,
  ARMS: readonly Arm[],
  entries: number,
  n: number,
): Promise<BenchRow[]> {
  const body = notification(1, entries);
  const perArm: number[][] = ARMS.map(() => []);
  for (const arm of ARMS) await batch(arm, body, Math.max(1, Math.round(n / 4))); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < ARMS.length; k++) {
      const a = (round + k) % ARMS.length;
      perArm[a]!.push(await batch(ARMS[a]!, body, n));
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
      note: `${n} documents per batch, ${ROUNDS} interleaved rounds, median; ratio = this / bare saxes (lower is better)`,
    };
  });
}

async function run(ctx: BenchContext): Promise<BenchRow[]> {
  const scale = ctx.scale;
  const all = await arms();
  return [
    ...(await measureBody(ctx, all, 5, Math.max(200, Math.round(3000 * scale)))),
    ...(await measureBody(ctx, all, 1000, Math.max(5, Math.round(30 * scale)))),
  ];
}

const scenario: BenchScenario = { name: 'notification check', run };
export default scenario;
