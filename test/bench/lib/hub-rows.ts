// The rows of the hub benchmark built from several arms' rounds: the raw ceiling as a baseline,
// the BENCH_HUB_BASE checkout's fan-out, the bound the publish path sets at 1 subscriber, and the
// floor hub's rows (lib/floor-hub.ts: what a hub that only stores and forwards reaches here).
import type { BenchRow } from '../types.js';
import { describeRange, describeSpread, spread } from './measure.js';
import { BURST_PUBLISHES_IN_FLIGHT, summary, type Measured, type PublishRate } from './hub-arms.js';

export const plural = (n: number) => `${n.toLocaleString('en-US')} subscriber${n === 1 ? '' : 's'}`;

/** The raw sender's rounds as the baseline of a fan-out row. */
export function rawCeiling(rs: ReturnType<typeof summary>): NonNullable<BenchRow['baseline']> {
  return {
    label: 'raw sender ceiling',
    value: rs.rate.median,
    unit: 'req/s',
    range: describeRange(rs.rate),
    cpuUsPerOp: rs.cpu,
  };
}

/** The BENCH_HUB_BASE checkout's fan-out, next to the same raw rounds. */
export function baseRow(
  n: number,
  bs: ReturnType<typeof summary>,
  rs: ReturnType<typeof summary>,
  base: Measured[],
  raw: Measured[],
): BenchRow {
  const ratios = spread(base.map((m, i) => m.perSecond / raw[i]!.perSecond));
  return {
    scenario: 'hub fan-out',
    figure: `deliveries/s to ${plural(n)} (burst), BENCH_HUB_BASE checkout`,
    value: bs.rate.median,
    unit: 'deliveries/s',
    range: describeRange(bs.rate),
    cpuUsPerOp: bs.cpu,
    peakRssMiB: bs.rss,
    baseline: rawCeiling(rs),
    ratio: bs.rate.median / rs.rate.median,
    note: `the same rounds, interleaved with this checkout's hub and the raw sender; per-round ratios ${describeSpread(ratios)}`,
  };
}

/**
 * At 1 subscriber every delivery needs a publish of its own: the burst cannot deliver faster than
 * the hub accepts publishes at the burst's concurrency with nobody to deliver to. That rate over
 * the raw sender's is the most the 1-subscriber ratio can reach on this machine with this hub's
 * publish path, whatever its deliveries cost.
 */
export function oneSubscriberBound(
  publishes: readonly PublishRate[],
  one: { hub: Measured[]; raw: Measured[] },
): BenchRow {
  const atBurst = summary(publishes.map((m) => m.bySetting.get(BURST_PUBLISHES_IN_FLIGHT)!));
  const raw = summary(one.raw);
  const burst = summary(one.hub);
  return {
    scenario: 'hub fan-out',
    figure: `bound at 1 subscriber: publishes/s the hub accepts at the burst's ${BURST_PUBLISHES_IN_FLIGHT} in flight, no subscriber`,
    value: atBurst.rate.median,
    unit: 'publishes/s',
    range: describeRange(atBurst.rate),
    cpuUsPerOp: atBurst.cpu,
    baseline: rawCeiling(raw),
    ratio: atBurst.rate.median / raw.rate.median,
    note:
      `the publish rounds at ${BURST_PUBLISHES_IN_FLIGHT} in flight, next to the 1-subscriber raw rounds (both in this run, not interleaved with each other); ` +
      `ratio: the most the 1-subscriber ratio can reach, since each of its deliveries needs a publish; ` +
      `the 1-subscriber burst delivered ${(burst.rate.median / atBurst.rate.median).toFixed(2)} of this rate`,
  };
}

/**
 * The floor hub's burst at `n` subscribers next to the same raw rounds: what a hub that only
 * stores and forwards reaches on this machine, so the most any hub's fan-out ratio could read here.
 */
export function floorFanOutRow(n: number, floor: Measured[], raw: Measured[]): BenchRow {
  return fanOutFloorRow(
    n,
    floor,
    raw,
    `floor: deliveries/s to ${plural(n)} (burst) by a hub that only stores and forwards`,
    'no token, no check, no cursors, retries, metrics or logs',
  );
}

/**
 * The checked floor's burst: the floor that also checks each publish's token and body first, so
 * the most a hub that refuses malformed publishes (RT-5, RT-7) could read here; at 1 subscriber
 * every delivery carries a publish's check.
 */
export function checkedFloorFanOutRow(
  n: number,
  checked: Measured[],
  raw: Measured[],
  hub: Measured[],
): BenchRow {
  return fanOutFloorRow(
    n,
    checked,
    raw,
    `checked floor: deliveries/s to ${plural(n)} (burst) by the floor that also checks each publish (RT-5, RT-7)`,
    "each publish's token (sha256, constant time) and body (one saxes pass in plain mode: well-formed, <urlset>, rs:md capability change-notification) checked before it is stored; no namespaces, limits or entry checks, no cursors, retries, metrics or logs; " +
      pairedWithHub(hub, checked, 'delivery'),
  );
}

/**
 * How much of a core the sending process kept busy, per round: its rate times its CPU per delivery.
 * Near 1 for the hub and the raw sender alike, a sender is bound by its one thread, so the ratio of
 * their rates is (within a few percent) the inverse ratio of their CPU per delivery.
 */
export function coresBusy(arm: readonly Measured[]): string {
  return describeSpread(spread(arm.map((m) => (m.perSecond * m.cpuUsPerOp) / 1e6)));
}

/**
 * The hub against a floor, round by round (the two ran next to each other in each round): how far
 * the hub is from what the floor reaches, free of the drift between rounds that both medians carry.
 */
function pairedWithHub(hub: readonly Measured[], floor: readonly Measured[], op: string): string {
  const rate = spread(hub.map((m, i) => m.perSecond / floor[i]!.perSecond));
  const cpu = spread(hub.map((m, i) => m.cpuUsPerOp / floor[i]!.cpuUsPerOp));
  return `the hub / this floor, per round: rate ${describeSpread(rate)}, CPU per ${op} ${describeSpread(cpu)}`;
}

function fanOutFloorRow(
  n: number,
  floor: Measured[],
  raw: Measured[],
  figure: string,
  omits: string,
): BenchRow {
  const fs = summary(floor);
  const rs = summary(raw);
  const ratios = spread(floor.map((m, i) => m.perSecond / raw[i]!.perSecond));
  return {
    scenario: 'hub fan-out',
    figure,
    value: fs.rate.median,
    unit: 'deliveries/s',
    range: describeRange(fs.rate),
    cpuUsPerOp: fs.cpu,
    peakRssMiB: fs.rss,
    baseline: rawCeiling(rs),
    ratio: fs.rate.median / rs.rate.median,
    note:
      `the same bursts and rounds, interleaved with the hub and the raw sender; per-round ratios ${describeSpread(ratios)}; ` +
      `lib/floor-hub.ts: each publish read whole, inserted into SQLite (WAL, synchronous=NORMAL, a transaction per turn) and answered, then POSTed like the raw sender, one in flight per callback; ${omits}`,
  };
}

/** The floor hub's publish rounds next to the bare server's: what storing alone leaves of the rate. */
export function floorPublishRow(floor: PublishRate[], bare: PublishRate[]): BenchRow {
  return publishFloorRow(
    floor,
    bare,
    'floor: publishes/s a server that only stores them accepts (SQLite commit before 200)',
    'no token, no check of the body, no metrics',
  );
}

export function checkedFloorPublishRow(
  checked: PublishRate[],
  bare: PublishRate[],
  hub: PublishRate[],
): BenchRow {
  return publishFloorRow(
    checked,
    bare,
    'checked floor: publishes/s the floor accepts when it also checks the token (RT-5) and parses the body (RT-7) first',
    "the token's sha256 compared in constant time, the body parsed once by saxes in plain mode (well-formed, <urlset>, rs:md capability change-notification); no namespaces, limits or entry checks, no metrics; " +
      pairedWithHub(hub, checked, 'publish'),
  );
}

function publishFloorRow(
  floor: PublishRate[],
  bare: PublishRate[],
  figure: string,
  does: string,
): BenchRow {
  const fs = summary(floor);
  const bs = summary(bare);
  return {
    scenario: 'hub publish',
    figure,
    value: fs.rate.median,
    unit: 'publishes/s',
    range: describeRange(fs.rate),
    cpuUsPerOp: fs.cpu,
    peakRssMiB: fs.rss,
    baseline: {
      label: 'same POSTs to a bare node:http server (own process)',
      value: bs.rate.median,
      unit: 'req/s',
      range: describeRange(bs.rate),
      cpuUsPerOp: bs.cpu,
    },
    ratio: fs.rate.median / bs.rate.median,
    note: `the floor hub (lib/floor-hub.ts) in the same interleaved rounds, best of the same settings (won: ${floor.map((m) => m.concurrency).join(',')}); ${does}`,
  };
}
