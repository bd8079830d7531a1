// The arms of the hub-cluster bench: a hub set-up (SQLite in one process, PostgreSQL in one or two
// processes on one database) with its subscriptions in place, and what a round measures on it: a
// fan-out burst, paced publish-to-receipt latencies, durable publishes/s. Every arm's hubs stay up
// for the whole run, so its rounds can be interleaved with the other arms' (measure.ts interleave).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { peakRssMiB, pool, resetPeakRss } from './measure.js';
import { BURST_PUBLISHES_IN_FLIGHT, BURST_SETTLE_MS, publisher } from './hub-arms.js';
import {
  notification,
  now,
  activeSubscriptions,
  addBenchSource,
  startHubChild,
  type HubChild,
  type Receivers,
} from './hub-processes.js';
import { meterRoles, processTreeSeconds, type RoleCpu } from './proc-cpu.js';

export const CLUSTER_SIZES = [100, 1000] as const;
export type ClusterSize = (typeof CLUSTER_SIZES)[number];

export interface ClusterArm {
  readonly label: string;
  readonly hubs: readonly HubChild[];
  readonly token: string;
  /** The PostgreSQL server's data directory (its CPU is metered), when the arm uses one. */
  readonly pgDataDir?: string;
}

export interface BurstResult {
  readonly perSecond: number;
  readonly deliveries: number;
  readonly cpu: RoleCpu;
  /** The largest peak RSS of the arm's hub processes during the burst, MiB. */
  readonly hubPeakRssMiB: number;
  /** Publish-to-receipt, ms, of the paced notifications sent after the burst. */
  readonly latencies: number[];
}

export const topicFor = (n: number) => `http://bench.test/fanout-${n}`;

/** CPU seconds so far of the PostgreSQL server (postmaster and backends), from its data directory. */
function postgresSeconds(dataDir: string | undefined): number {
  if (!dataDir) return 0;
  return processTreeSeconds(
    Number(readFileSync(join(dataDir, 'postmaster.pid'), 'latin1').split('\n')[0]),
  );
}

/** Subscriptions driven (SQLite: the active ones of the one process; PostgreSQL: claims summed over processes). */
async function driven(hubs: readonly HubChild[]): Promise<number> {
  let n = 0;
  for (const h of hubs) {
    const res = await request(new URL('/healthz', h.url));
    const health = (await res.body.json()) as { claims?: number };
    if (health.claims !== undefined) {
      n += health.claims;
      continue;
    }
    n += await activeSubscriptions(h.url);
  }
  return n;
}

/**
 * Starts an arm's hubs (the build, as deployed) on `db` (a SQLite file or a PostgreSQL URL) and
 * subscribes `n` callbacks to the topic of each fan-out size, spread over the processes; resolves
 * when every subscription is driven.
 */
export async function startClusterArm(options: {
  readonly label: string;
  readonly name: string;
  readonly db: string;
  readonly processes: number;
  readonly workDir: string;
  readonly receivers: Receivers;
  readonly pgDataDir?: string;
}): Promise<ClusterArm> {
  const { db, name, receivers } = options;
  const token = await addBenchSource(db);
  const config = join(options.workDir, `${name}.config.json`);
  const hubs = await Promise.all(
    Array.from({ length: options.processes }, () => startHubChild(db, undefined, name, config)),
  );
  let subscribed = 0;
  for (const n of CLUSTER_SIZES) {
    await pool(n, 16, async (i) => {
      const res = await request(hubs[i % hubs.length]!.url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          'hub.mode': 'subscribe',
          'hub.topic': topicFor(n),
          'hub.callback': receivers.url(i, `/${name}/s${n}/${i}`),
        }).toString(),
      });
      await res.body.dump();
    });
    subscribed += n;
    const deadline = Date.now() + 180_000;
    while ((await driven(hubs)) < subscribed) {
      if (Date.now() > deadline)
        throw new Error(`${name}: ${subscribed} subscriptions not driven in time`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { label: options.label, hubs, token, pgDataDir: options.pgDataDir };
}

/**
 * One round at fan-out size `n`: a burst of `notifications` publishes (8 in flight, spread over the
 * arm's processes) from the first publish to the last receipt, its CPU by role metered until the
 * cursor batch after it; then `paced` notifications one at a time (each after the previous one's
 * fan-out landed, to alternating processes) for publish-to-receipt latencies.
 */
export async function clusterBurst(
  arm: ClusterArm,
  receivers: Receivers,
  n: number,
  notifications: number,
  paced: number,
): Promise<BurstResult> {
  const topic = topicFor(n);
  const pubs = arm.hubs.map((h) => publisher(h.url, arm.token, topic, BURST_PUBLISHES_IN_FLIGHT));
  const post = (i: number) => pubs[i % pubs.length]!.post(notification(i));
  try {
    await receivers.reset();
    for (const h of arm.hubs) resetPeakRss(h.child.pid!);
    const endCpu = meterRoles({
      hub: () => arm.hubs.map((h) => h.child.pid!),
      postgres: () => postgresSeconds(arm.pgDataDir),
      receivers: () => [receivers.pid],
      publisher: () => [process.pid],
    });
    const started = now();
    const done = receivers.reached(notifications * n);
    await pool(notifications, BURST_PUBLISHES_IN_FLIGHT, post);
    const perSecond = (notifications * n) / (((await done) - started) / 1000);
    await new Promise((r) => setTimeout(r, BURST_SETTLE_MS));
    const cpu = endCpu();
    const hubPeakRssMiB = Math.max(...arm.hubs.map((h) => peakRssMiB(h.child.pid!)));
    await receivers.reset(true);
    const publishedAt: number[] = [];
    for (let i = 0; i < paced; i++) {
      const landed = receivers.reached((i + 1) * n);
      publishedAt[i] = now();
      await post(i);
      await landed;
    }
    const latencies = (await receivers.records())
      .filter((r) => r.tag >= 0)
      .map((r) => r.at - publishedAt[r.tag]!);
    return { perSecond, deliveries: notifications * n, cpu, hubPeakRssMiB, latencies };
  } finally {
    await Promise.all(pubs.map((p) => p.close()));
  }
}

/** Durable publishes/s on a topic nobody subscribed (the commit path alone), 32 in flight over the processes. */
export async function clusterPublishes(arm: ClusterArm, total: number): Promise<number> {
  const topic = 'http://bench.test/publish-only';
  const pubs = arm.hubs.map((h) => publisher(h.url, arm.token, topic, 32));
  try {
    const started = now();
    await pool(total, 32, (i) => pubs[i % pubs.length]!.post(notification(i)));
    return total / ((now() - started) / 1000);
  } finally {
    await Promise.all(pubs.map((p) => p.close()));
  }
}

export async function stopClusterArm(arm: ClusterArm): Promise<void> {
  await Promise.all(arm.hubs.map((h) => h.stop()));
}
