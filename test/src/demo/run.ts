// The main job: a hub, the Source simulator registered with it as a Source, and a subscriber
// mirroring it, all on 127.0.0.1 with embedded SQLite under one data directory. Progress is shown
// live; on stop (Ctrl-C, or --duration) the changes stop, the subscriber is given time to converge,
// and an audit proves the mirror equals the Source byte for byte.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { request } from 'undici';
import { startHub, type RunningHub } from '@rsnotify/hub';
import { startSubscriber, type RunningSubscriber } from '@rsnotify/subscriber';
import { diffMirror, isIdentical, type MirrorDiff } from '../harness/index.js';
import { startSourceSimulator, type SourceSimulator } from '../source-simulator/index.js';
import {
  ProgressLine,
  formatProgress,
  formatTotals,
  reachedUntil,
  type DemoCounters,
  type DemoTotals,
} from './progress.js';

export interface DemoOptions {
  dataDir: string;
  hubPort: number;
  sourcePort: number;
  subscriberPort: number;
  /** Changes per second the simulator makes while running. */
  rate: number;
  faults: boolean;
  /** Stop by itself after this many seconds (0: run until Ctrl-C). */
  durationSeconds: number;
  seed: number;
  out: NodeJS.WriteStream;
}

interface DemoState {
  token: string;
  topicPrefix: string;
}

export interface DemoResult {
  converged: boolean;
  inSync: boolean;
  audit: MirrorDiff;
}

async function deliveredCount(hubUrl: string): Promise<number> {
  try {
    const res = await request(new URL('/metrics', hubUrl).href);
    const text = await res.body.text();
    let sum = 0;
    for (const line of text.split('\n')) {
      if (line.startsWith('#') || !/deliver/i.test(line)) continue;
      if (!/outcome="(delivered|success|ok)"/.test(line)) continue;
      if (/_bucket|_sum|_count/.test(line.split(' ')[0] ?? '')) continue;
      sum += Number(line.trim().split(/\s+/).pop()) || 0;
    }
    return sum;
  } catch {
    return 0;
  }
}

type StatusRow = Awaited<ReturnType<RunningSubscriber['status']>>[number];

/**
 * The subscriber's running totals. Its status `errors` is failed changes plus ignored deliveries
 * (two different things, neither a crash): the demo shows them apart, under their own names.
 */
function totalsOf(st: StatusRow | undefined): DemoTotals {
  if (!st) return { changesApplied: 0, changesFailed: 0, deliveriesIgnored: 0, catchUps: 0 };
  return {
    changesApplied: st.changesApplied,
    changesFailed: Math.max(0, st.errors - st.ignoredDeliveries),
    deliveriesIgnored: st.ignoredDeliveries,
    catchUps: st.catchUps,
  };
}

export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const dataDir = resolve(options.dataDir);
  const mirrorDir = join(dataDir, 'mirror');
  mkdirSync(mirrorDir, { recursive: true });
  mkdirSync(join(dataDir, 'demo'), { recursive: true });
  const say = (line: string) => options.out.write(`${line}\n`);

  const hub: RunningHub = await startHub({
    host: '127.0.0.1',
    port: options.hubPort,
    dbFile: join(dataDir, 'hub.db'),
    allowPrivateNetworks: true,
    logLevel: 'silent',
    retry: { initialDelayMs: 200, maxDelayMs: 5_000, maxAgeMs: 10 * 60_000 },
  });

  // The hub stores only a hash of a Source's token, so the demo keeps the token it was given the
  // first time; a rerun resumes with the same Source registration.
  const statePath = join(dataDir, 'demo', 'source.json');
  const sim: SourceSimulator = await startSourceSimulator({
    host: '127.0.0.1',
    port: options.sourcePort,
    seed: options.seed,
    initialResources: 200,
  });
  let state: DemoState | undefined = existsSync(statePath)
    ? (JSON.parse(readFileSync(statePath, 'utf8')) as DemoState)
    : undefined;
  if (!state || state.topicPrefix !== sim.topicPrefix) {
    const { token } = await hub.addSource(`demo-source-${Date.now()}`, [sim.topicPrefix]);
    state = { token, topicPrefix: sim.topicPrefix };
    writeFileSync(statePath, JSON.stringify(state), { mode: 0o600 });
  }
  sim.setHub(hub.url, state.token);

  const subscriber: RunningSubscriber = await startSubscriber({
    listen: { host: '127.0.0.1', port: options.subscriberPort },
    dataDir: join(dataDir, 'subscriber'),
    allowPrivateNetworks: true,
    logLevel: 'silent',
    sources: [
      { name: 'demo', url: sim.wellKnownUrl, mirrorDir, gapTimeout: '2s', leaseSeconds: 3600 },
    ],
  } as Parameters<typeof startSubscriber>[0]);

  say(`rsnotify demo (data in ${dataDir})`);
  say(`  hub         ${hub.url}   (metrics: ${new URL('/metrics', hub.url).href})`);
  say(`  source      ${sim.wellKnownUrl}`);
  say(`  topic       ${sim.topicUrl}`);
  say(`  subscriber  ${subscriber.callbackBaseUrl}   mirror: ${mirrorDir}`);
  if (options.faults)
    say(
      '  faults ON: notifications are dropped, reordered and duplicated; watch catch-ups repair the gaps',
    );
  say('Ctrl-C stops the changes, waits for the mirror to converge, audits it and exits.');

  if (options.faults) {
    Object.assign(sim.faults, {
      dropProbability: 0.05,
      reorderProbability: 0.1,
      duplicateProbability: 0.1,
    });
  }

  const counters: DemoCounters = {
    changesPublished: 0,
    notificationsPosted: 0,
    notificationsDelivered: 0,
    changesApplied: 0,
    lagMs: undefined,
    catchUps: 0,
    changesFailed: 0,
    deliveriesIgnored: 0,
    publishErrors: 0,
    syncedUntil: undefined,
    sourceUntil: undefined,
  };
  const progress = new ProgressLine(options.out);
  const started = Date.now();
  // A rerun resumes a stored mirror: the progress line shows this run's counts, so the subscriber's
  // running totals at start are subtracted; the totals are printed, labelled, at the end.
  const before = totalsOf((await subscriber.status())[0]);
  let totals = before;
  const deliveredBefore = await deliveredCount(hub.url);
  let stopping = false;
  let stopRequested: () => void = () => {};
  const stopSignal = new Promise<void>((r) => {
    stopRequested = r;
  });
  const onSignal = () => {
    stopping = true;
    stopRequested();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  if (options.durationSeconds > 0) setTimeout(onSignal, options.durationSeconds * 1000).unref();

  const refresh = async () => {
    const [st] = await subscriber.status();
    if (st) {
      totals = totalsOf(st);
      counters.lagMs = st.lagMs;
      counters.syncedUntil = st.syncedUntil;
      counters.changesApplied = totals.changesApplied - before.changesApplied;
      counters.catchUps = totals.catchUps - before.catchUps;
      counters.changesFailed = totals.changesFailed - before.changesFailed;
      counters.deliveriesIgnored = totals.deliveriesIgnored - before.deliveriesIgnored;
    }
    counters.sourceUntil = sim.lastUntil();
    counters.notificationsDelivered = (await deliveredCount(hub.url)) - deliveredBefore;
    progress.update(formatProgress(counters, Date.now() - started));
  };

  // Changes come in batches every 100 ms (one notification each), with an occasional burst.
  const producer = (async () => {
    let budget = 0;
    while (!stopping) {
      budget += options.rate / 10;
      let n = Math.floor(budget);
      if (Math.random() < 0.02) n += Math.ceil(options.rate); // a burst
      if (n > 0) {
        budget -= Math.min(budget, n);
        await sim.changeBatch(n).catch(() => {
          counters.publishErrors++;
        });
        counters.changesPublished += n;
        counters.notificationsPosted++;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const ticker = setInterval(() => {
    void refresh();
  }, 250);

  await stopSignal;
  await producer;
  Object.assign(sim.faults, { dropProbability: 0, reorderProbability: 0, duplicateProbability: 0 });
  // A dropped last notification would leave no later `from` to reveal the gap: end with a clean one.
  await sim.changeBatch(1);
  counters.changesPublished += 1;
  counters.notificationsPosted++;
  await sim.flush();
  progress.finish(formatProgress(counters, Date.now() - started));
  say('changes stopped; waiting for the mirror to converge ...');
  const target = sim.lastUntil();
  let converged = false;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    await refresh();
    if (target === undefined || reachedUntil(counters.syncedUntil, target)) {
      converged = true;
      break;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  clearInterval(ticker);
  progress.finish(formatProgress(counters, Date.now() - started));
  const audit = await diffMirror(mirrorDir, sim.snapshot());
  const inSync = isIdentical(audit);
  say(
    converged
      ? `converged: syncedUntil ${counters.syncedUntil} reaches the Source's last until ${target}`
      : `NOT converged within 60 s (syncedUntil ${counters.syncedUntil}, Source ${target})`,
  );
  say(
    inSync
      ? `audit: mirror equals the Source, ${audit.checked} resources byte for byte, no extra files`
      : `audit: ${audit.missing.length} missing, ${audit.different.length} different of ${audit.checked}, ${audit.extra.length} extra (first: ${[...audit.missing, ...audit.different, ...audit.extra].slice(0, 3).join(', ')})`,
  );
  say(formatTotals(totals));
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  await subscriber.close();
  await sim.close();
  await hub.close();
  return { converged, inSync, audit };
}
