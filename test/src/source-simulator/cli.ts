#!/usr/bin/env node
// `pnpm --filter @rsnotify/test simulate ...`: a Source simulator a person can run beside a hub.
// Prints one JSON line `simulator.listening` with every URL, then `simulator.stats` lines; SIGINT or
// SIGTERM stops the changes, lets queued notifications go out (bounded) and exits.
import { Command, InvalidArgumentError } from 'commander';
import type { SimulatorOptions } from './api.js';
import { startSourceSimulator } from './simulator.js';
import { defaultFaults, updateFaults, type Faults } from './faults.js';

function emit(event: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), event, ...fields })}\n`);
}

function int(name: string, min = 0) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min)
      throw new InvalidArgumentError(`${name} must be an integer >= ${min}`);
    return n;
  };
}

function num(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0)
      throw new InvalidArgumentError(`${name} must be a number >= 0`);
    return n;
  };
}

/** `dropProbability=0.1,reorderProbability=0.2` -> an object for updateFaults. */
function parseFaults(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const out = { ...previous };
  for (const pair of value.split(',')) {
    if (!pair.trim()) continue;
    const eq = pair.indexOf('=');
    if (eq <= 0)
      throw new InvalidArgumentError(`--fault expects name=value, got ${JSON.stringify(pair)}`);
    out[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
  }
  return out;
}

const program = new Command()
  .name('simulate')
  .description(
    'ResourceSync Source simulator: serves a changing Source on 127.0.0.1 and posts change notifications to a hub',
  )
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option('--port <port>', 'port (0 = ephemeral)', int('--port'), 0)
  .option(
    '--hub <url>',
    'hub endpoint to post notifications to (advertised in the Capability List)',
  )
  .option(
    '--list-only',
    'publish Change Lists only: no notifications posted, no hub advertised (a Source to bridge)',
  )
  .option('--token <token>', "the Source's hub token (or env RSNOTIFY_SOURCE_TOKEN)")
  .option(
    '--rate <changes/s>',
    'automatic changes per second (0 = none; use the /_sim/batch endpoint)',
    num('--rate'),
    50,
  )
  .option('--seed <n>', 'seed for resources, changes and faults', int('--seed'), 1)
  .option('--initial <n>', 'resources that exist at start', int('--initial'), 100)
  .option(
    '--page-size <n>',
    'resources per Resource List (an index above it)',
    int('--page-size', 1),
    1000,
  )
  .option(
    '--changelist-max-entries <n>',
    'close the open Change List after this many entries',
    int('--changelist-max-entries', 1),
    1000,
  )
  .option(
    '--changelist-max-age <s>',
    'close the open Change List after this many seconds',
    num('--changelist-max-age'),
    60,
  )
  .option(
    '--retention <s>',
    'drop closed Change Lists this many seconds after closing',
    num('--retention'),
    300,
  )
  .option(
    '--max-per-notification <n>',
    'split larger batches into several notifications (RN-13)',
    int('--max-per-notification', 1),
    100,
  )
  .option(
    '--batch-interval <ms>',
    'automatic mode: one batch every this many ms',
    int('--batch-interval', 5),
    100,
  )
  .option(
    '--spec-version <v>',
    'ResourceSync 1.1 (datetime) or 1.0 (lastmod as change time)',
    '1.1',
  )
  .option(
    '--topic-body <mode>',
    'the topic serves the latest notification (latest) or nothing (empty)',
    'latest',
  )
  .option(
    '--fault <name=value,...>',
    'fault switches, e.g. dropProbability=0.05,reorderProbability=0.1 (repeatable)',
    parseFaults,
  )
  .option(
    '--stats-interval <s>',
    'print a stats line every this many seconds (0 = never)',
    num('--stats-interval'),
    10,
  )
  .option('--quiet', 'no per-event log lines (failed posts, injected corruption)');

async function main(): Promise<void> {
  program.parse();
  const o = program.opts<{
    host: string;
    port: number;
    hub?: string;
    listOnly?: boolean;
    token?: string;
    rate: number;
    seed: number;
    initial: number;
    pageSize: number;
    changelistMaxEntries: number;
    changelistMaxAge: number;
    retention: number;
    maxPerNotification: number;
    batchInterval: number;
    specVersion: string;
    topicBody: string;
    fault?: Record<string, string>;
    statsInterval: number;
    quiet?: boolean;
  }>();
  if (o.specVersion !== '1.0' && o.specVersion !== '1.1')
    program.error('--spec-version must be 1.0 or 1.1');
  if (o.topicBody !== 'latest' && o.topicBody !== 'empty')
    program.error('--topic-body must be latest or empty');
  // Validate and convert the switches once, then pass only the ones given.
  const probe = defaultFaults();
  try {
    updateFaults(probe, o.fault ?? {});
  } catch (err) {
    program.error((err as Error).message);
  }
  const faults = Object.fromEntries(
    Object.keys(o.fault ?? {}).map((k) => [k, probe[k as keyof Faults]]),
  ) as Partial<Faults>;
  const token = o.token ?? process.env.RSNOTIFY_SOURCE_TOKEN;
  const options: SimulatorOptions = {
    host: o.host,
    port: o.port,
    seed: o.seed,
    initialResources: o.initial,
    pageSize: o.pageSize,
    changeListMaxEntries: o.changelistMaxEntries,
    changeListMaxAgeMs: o.changelistMaxAge * 1000,
    retentionMs: o.retention * 1000,
    maxEntriesPerNotification: o.maxPerNotification,
    batchIntervalMs: o.batchInterval,
    specVersion: o.specVersion as '1.0' | '1.1',
    topicBody: o.topicBody as 'latest' | 'empty',
    faults,
    ...(o.hub ? { hubUrl: o.hub } : {}),
    ...(o.listOnly ? { listOnly: true } : {}),
    ...(token ? { token } : {}),
    ...(o.quiet
      ? {}
      : { log: (event: string, fields: Record<string, unknown>) => emit(event, fields) }),
  };
  const sim = await startSourceSimulator(options);
  emit('simulator.listening', {
    baseUrl: sim.baseUrl,
    topicPrefix: sim.topicPrefix,
    wellKnownUrl: sim.wellKnownUrl,
    capabilityListUrl: sim.capabilityListUrl,
    resourceListUrl: sim.resourceListUrl,
    changeListIndexUrl: sim.changeListIndexUrl,
    topicUrl: sim.topicUrl,
    controlUrl: `${sim.baseUrl}/_sim/`,
    hub: o.listOnly ? null : (o.hub ?? null),
    listOnly: o.listOnly === true,
    hasToken: token !== undefined,
    seed: o.seed,
    rate: o.rate,
  });
  if (o.rate > 0) sim.start(o.rate);
  const statsTimer =
    o.statsInterval > 0
      ? setInterval(() => emit('simulator.stats', { ...sim.stats() }), o.statsInterval * 1000)
      : undefined;

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    if (statsTimer) clearInterval(statsTimer);
    sim.pause();
    const flushed = await Promise.race([
      sim.flush().then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), 5_000)),
    ]);
    emit('simulator.stopping', { signal, flushed, ...sim.stats() });
    await sim.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err: unknown) => {
  emit('simulator.failed', { error: err instanceof Error ? err.message : String(err) });
  process.exit(1);
});
