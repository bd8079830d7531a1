// Hub scale-out benchmark, every figure from the same run: the same workload on
//   SQLite, 1 process (the baseline) | PostgreSQL, 1 process | PostgreSQL, 2 processes (one database)
// - fan-out deliveries/s at 100 and 1,000 subscribers (burst: first publish to last receipt);
// - publish-to-receipt p50/p99 at 100 and 1,000 subscribers (paced: one notification at a time);
// - durable publishes/s (32 in flight; with 2 processes spread over both).
// All three arms are up for the whole run and measured in interleaved rounds (A B C, B C A, ...),
// after BENCH_WARM_UP_ROUNDS thrown-away rounds of each: measured cold, the two-process arm read
// about twice the CPU per delivery of one process at 100 subscribers, because each of its processes
// sees half the traffic and is still compiling (lib/cluster-arms.ts; profile.md, 2026-12-06 23:00).
// PostgreSQL is a throw-away server started here with fsync on (durable commits, like SQLite's WAL).
// Hubs (their build) and receivers run as their own processes (plain node:http receivers).
import { join } from 'node:path';
import { createDatabase, startPostgres } from '../../../scripts/postgres-server.mjs';
import type { BenchContext, BenchRow, BenchScenario } from '../types.js';
import {
  describeRange,
  interleave,
  percentile,
  spread,
  warmUp,
  type Spread,
} from '../lib/measure.js';
import { Receivers, ROUNDS, WARM_UP_ROUNDS } from '../lib/hub-processes.js';
import { describeRoleCpu } from '../lib/proc-cpu.js';
import {
  CLUSTER_SIZES,
  clusterBurst,
  clusterPublishes,
  startClusterArm,
  stopClusterArm,
  type BurstResult,
  type ClusterArm,
} from '../lib/cluster-arms.js';

type ArmKey = 'sqlite' | 'pg1' | 'pg2';

const SQLITE_NOTE = 'SQLite in WAL mode, synchronous=NORMAL';
// Two processes' publishing transactions queue behind each other's commit instead of sharing one
// group commit: on one topic both bump the same row (gap-free seqs), and any commit that sends a
// NOTIFY holds PostgreSQL's database-wide notify lock until it ends.
const PG_NOTE = 'PostgreSQL fsync on, synchronous_commit on';

interface ArmFigures {
  readonly fanOut: Map<number, { rate: Spread; rounds: BurstResult[] }>;
  readonly publishes: Spread;
}

/** The round whose rate is the median (the lower middle of an even count): its CPU is the row's. */
function medianRound(rounds: readonly BurstResult[]): BurstResult {
  const sorted = [...rounds].sort((a, b) => a.perSecond - b.perSecond);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

async function measureArms(
  ctx: BenchContext,
  arms: Record<ArmKey, ClusterArm>,
  receivers: Receivers,
): Promise<Record<ArmKey, ArmFigures>> {
  const keys = Object.keys(arms) as ArmKey[];
  const fanOut = Object.fromEntries(keys.map((k) => [k, new Map()])) as Record<
    ArmKey,
    ArmFigures['fanOut']
  >;
  for (const n of CLUSTER_SIZES) {
    // ~20k deliveries a burst, then paced samples for the latencies.
    const notifications = Math.max(5, Math.round((20_000 / n) * ctx.scale));
    const paced = Math.max(5, Math.round((n === 100 ? 40 : 10) * ctx.scale));
    const round = (k: ArmKey) => () => clusterBurst(arms[k], receivers, n, notifications, paced);
    const byArm = Object.fromEntries(keys.map((k) => [k, round(k)])) as Record<
      ArmKey,
      () => Promise<BurstResult>
    >;
    ctx.log(
      `${n} subscribers: ${WARM_UP_ROUNDS} warm-up rounds, then ${ROUNDS} interleaved rounds`,
    );
    await warmUp(WARM_UP_ROUNDS, byArm);
    const results = await interleave(ROUNDS, byArm);
    for (const k of keys) {
      const rounds = results[k];
      fanOut[k].set(n, { rate: spread(rounds.map((r) => r.perSecond)), rounds });
      const m = medianRound(rounds);
      ctx.log(
        `${arms[k].label}, ${n}: ${rounds.map((r) => Math.round(r.perSecond)).join(', ')} deliveries/s`,
      );
      ctx.log(`  ${describeRoleCpu(m.cpu, m.deliveries, 'delivery', 'deliveries')}`);
    }
  }
  const total = Math.round(5_000 * ctx.scale);
  const publishArms = Object.fromEntries(
    keys.map((k) => [k, () => clusterPublishes(arms[k], total)]),
  ) as Record<ArmKey, () => Promise<number>>;
  await warmUp(1, publishArms);
  const published = await interleave(ROUNDS, publishArms);
  return Object.fromEntries(
    keys.map((k) => [k, { fanOut: fanOut[k], publishes: spread(published[k]) }]),
  ) as Record<ArmKey, ArmFigures>;
}

function rowsFor(
  label: string,
  m: ArmFigures,
  base: ArmFigures | undefined,
  baseLabel: string,
  target: string | undefined,
  engineNote: string,
): BenchRow[] {
  const rows: BenchRow[] = [];
  for (const n of CLUSTER_SIZES) {
    const f = m.fanOut.get(n)!;
    const b = base?.fanOut.get(n);
    const mid = medianRound(f.rounds);
    const latencies = f.rounds.flatMap((r) => r.latencies);
    rows.push({
      scenario: 'hub cluster',
      figure: `${label}: fan-out deliveries/s, ${n} subscribers`,
      value: f.rate.median,
      range: describeRange(f.rate),
      unit: 'deliveries/s',
      cpuUsPerOp: (mid.cpu.seconds.hub! / mid.deliveries) * 1e6,
      peakRssMiB: Math.max(...f.rounds.map((r) => r.hubPeakRssMiB)),
      baseline: b
        ? {
            label: baseLabel,
            value: b.rate.median,
            unit: 'deliveries/s',
            range: describeRange(b.rate),
          }
        : undefined,
      ratio: b ? f.rate.median / b.rate.median : undefined,
      target,
      note: `${WARM_UP_ROUNDS} warm-up rounds, then ${ROUNDS} interleaved; peak RSS: the largest hub process of the measured rounds; the round at the median: ${describeRoleCpu(mid.cpu, mid.deliveries, 'delivery', 'deliveries')}`,
    });
    rows.push({
      scenario: 'hub cluster',
      figure: `${label}: publish-to-receipt p50 / p99, ${n} subscribers`,
      value: percentile(latencies, 50),
      unit: 'ms',
      note: `p99 ${percentile(latencies, 99).toFixed(1)} ms, ${latencies.length} receipts over the measured rounds`,
    });
  }
  rows.push({
    scenario: 'hub cluster',
    figure: `${label}: durable publishes/s`,
    value: m.publishes.median,
    range: describeRange(m.publishes),
    unit: 'publishes/s',
    baseline: base
      ? {
          label: baseLabel,
          value: base.publishes.median,
          unit: 'publishes/s',
          range: describeRange(base.publishes),
        }
      : undefined,
    ratio: base ? m.publishes.median / base.publishes.median : undefined,
    note: `32 in flight, on one topic; ${engineNote}`,
  });
  return rows;
}

const scenario: BenchScenario = {
  name: 'hub-cluster',
  async run(ctx: BenchContext): Promise<BenchRow[]> {
    const pg = await startPostgres({ fsync: true });
    if ('error' in pg) {
      return [
        {
          scenario: 'hub cluster',
          figure: 'SKIPPED',
          value: NaN,
          unit: '',
          note: `PostgreSQL could not be started: ${pg.error}`,
        },
      ];
    }
    const receivers = await Receivers.start();
    const started: ClusterArm[] = [];
    const arm = async (o: Parameters<typeof startClusterArm>[0]) => {
      const a = await startClusterArm(o);
      started.push(a);
      return a;
    };
    try {
      const common = { workDir: ctx.tmpDir, receivers };
      const arms: Record<ArmKey, ClusterArm> = {
        sqlite: await arm({
          ...common,
          label: 'SQLite, 1 process',
          name: 'hub-cluster-sqlite-1p',
          db: join(ctx.tmpDir, 'hub.db'),
          processes: 1,
        }),
        pg1: await arm({
          ...common,
          label: 'PostgreSQL, 1 process',
          name: 'hub-cluster-postgres-1p',
          db: createDatabase(pg.adminUrl, 'bench1'),
          processes: 1,
          pgDataDir: pg.dataDir,
        }),
        pg2: await arm({
          ...common,
          label: 'PostgreSQL, 2 processes',
          name: 'hub-cluster-postgres-2p',
          db: createDatabase(pg.adminUrl, 'bench2'),
          processes: 2,
          pgDataDir: pg.dataDir,
        }),
      };
      const m = await measureArms(ctx, arms, receivers);
      return [
        ...rowsFor(arms.sqlite.label, m.sqlite, undefined, '', undefined, SQLITE_NOTE),
        ...rowsFor(arms.pg1.label, m.pg1, m.sqlite, 'SQLite 1 process', 'ratio >= 0.5', PG_NOTE),
        ...rowsFor(arms.pg2.label, m.pg2, m.pg1, 'PostgreSQL 1 process', 'ratio >= 1.3', PG_NOTE),
      ];
    } finally {
      await Promise.all(started.map(stopClusterArm));
      receivers.stop();
      pg.stop();
    }
  },
};

export default scenario;
