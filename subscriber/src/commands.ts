// The one-shot commands over the daemon's store (`sync`, `audit`, `audit --repair`, `status`,
// `unsubscribe`): each builds the same runtime as the daemon, does one thing, and closes it.
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { auditMirror, type AuditReport, type ReconcileResult } from './audit/index.js';
import {
  resolveConfig,
  type ResolvedConfig,
  type SourceConfig,
  type SubscriberConfig,
} from './config.js';
import { discoverSource, pageFetcherFrom } from './discovery/index.js';
import { SubscriberError } from './errors/index.js';
import { createIntake } from './intake/index.js';
import { createHttpGetter } from './mirror/index.js';
import { createLogger } from './observability/index.js';
import { SourceRunner, type CatchUpOutcome } from './runner/index.js';
import {
  buildRuntime,
  closeRuntime,
  DB_FILE,
  intakeBasePath,
  listen,
  type StartOptions,
} from './runtime.js';
import { sourceStatus, type SourceStatus } from './status/index.js';
import { openSqliteStore } from './store/index.js';
import { unsubscribe as sendUnsubscribe, type SubscriptionDeps } from './subscription/index.js';

function findSource(cfg: ResolvedConfig, name: string): SourceConfig {
  const sc = cfg.sources.find((s) => s.name === name);
  if (!sc)
    throw new SubscriberError(
      'RSN_SOURCE_UNKNOWN',
      `no source named ${JSON.stringify(name)} in the config (have: ${cfg.sources.map((s) => s.name).join(', ') || 'none'})`,
    );
  return sc;
}

/** Runs one operation on a runner for `name` (without a subscription), then closes everything. */
async function withRunner<T>(
  config: SubscriberConfig | ResolvedConfig,
  name: string,
  options: StartOptions,
  operation: (runner: SourceRunner) => Promise<T>,
): Promise<T> {
  const cfg = resolveConfig(config);
  const rt = buildRuntime(cfg, options);
  try {
    const runner = new SourceRunner(rt, findSource(cfg, name), false);
    await runner.init();
    try {
      return await operation(runner);
    } finally {
      await runner.stop(1_000);
    }
  } finally {
    await closeRuntime(rt);
  }
}

/** `sync NAME`: one baseline (without a position) or one catch-up, without the hub. */
export function syncSource(
  config: SubscriberConfig | ResolvedConfig,
  name: string,
  options: StartOptions = {},
): Promise<{ syncedUntil?: string; outcome: CatchUpOutcome }> {
  return withRunner(config, name, options, (runner) => runner.syncOnce());
}

/** `audit NAME --repair`: one reconciliation (audit, then repair through the verified writer). */
export function repairSource(
  config: SubscriberConfig | ResolvedConfig,
  name: string,
  options: StartOptions = {},
): Promise<ReconcileResult> {
  return withRunner(config, name, options, (runner) => runner.repairOnce());
}

/** `audit NAME`: compares the mirror with the Source's current Resource List. */
export async function auditSource(
  config: SubscriberConfig | ResolvedConfig,
  name: string,
  options: StartOptions = {},
): Promise<AuditReport & { resourceListUrl: string; stillChanging?: boolean }> {
  const cfg = resolveConfig(config);
  const sc = findSource(cfg, name);
  const logger = options.logger ?? createLogger(cfg.logLevel);
  const http = createHttpGetter({
    allowPrivateNetworks: cfg.allowPrivateNetworks,
    perHostConcurrency: sc.fetchConcurrencyPerHost,
  });
  try {
    const d = await discoverSource(sc.url, pageFetcherFrom(http));
    if (!d.resourceListUrl)
      throw new SubscriberError(
        'RSN_AUDIT_NO_RESOURCELIST',
        `${name}: the Capability List has no Resource List to audit against`,
      );
    let report: AuditReport & { stillChanging?: boolean } = await auditMirror(
      d.resourceListUrl,
      sc.mirrorDir,
      http,
    );
    if (!report.inSync) {
      // A Source that is still changing moves the list under us: look once more. Differences that
      // moved between the two looks are the Source changing, not the mirror diverging.
      const second = await auditMirror(d.resourceListUrl, sc.mirrorDir, http);
      const key = (r: AuditReport): string =>
        JSON.stringify([r.missing, r.extra, r.different.map((x) => x.uri)]);
      report = second.inSync
        ? second
        : {
            ...second,
            ...(second.at !== report.at && key(second) !== key(report)
              ? { stillChanging: true }
              : {}),
          };
    }
    logger.info(
      {
        event: 'audit.completed',
        source: name,
        inSync: report.inSync,
        checked: report.checked,
        missing: report.missing.length,
        extra: report.extra.length,
        different: report.different.length,
      },
      'audit.completed',
    );
    return { ...report, resourceListUrl: d.resourceListUrl };
  } finally {
    await http.close();
  }
}

/** Reads status from the store (works while the daemon runs: WAL readers do not block it). */
function neverRunStatus(name: string, file: string): SourceStatus {
  return {
    name,
    mode: 'unknown',
    lagMs: 0,
    buffered: 0,
    gaps: 0,
    catchUps: 0,
    changesApplied: 0,
    errors: 0,
    resources: 0,
    ignoredDeliveries: 0,
    lastError: `no state yet: the daemon has not run with this dataDir (no ${file})`,
  };
}

export async function readStatus(
  config: SubscriberConfig | ResolvedConfig,
): Promise<SourceStatus[]> {
  const cfg = resolveConfig(config);
  const file = join(cfg.dataDir, DB_FILE);
  // Before the daemon's first start there is no database: say so per source instead of failing.
  if (!existsSync(file)) return cfg.sources.map((s) => neverRunStatus(s.name, file));
  const repo = openSqliteStore({ file, readonly: true });
  try {
    const out: SourceStatus[] = [];
    for (const s of await repo.listSources()) {
      if (cfg.sources.length > 0 && !cfg.sources.some((c) => c.name === s.name)) continue;
      out.push(await sourceStatus(repo, s));
    }
    return out;
  } finally {
    await repo.close();
  }
}

/**
 * `unsubscribe NAME` (WS-19): marks the source so the daemon does not subscribe again, stores the
 * pending unsubscribe, and asks the hub. The verification is answered by the running daemon; when
 * none is running, a temporary intake on the configured address answers it.
 */
export async function unsubscribeSource(
  config: SubscriberConfig | ResolvedConfig,
  name: string,
  options: StartOptions & { waitMs?: number } = {},
): Promise<{ requested: number; confirmed: number }> {
  const cfg = resolveConfig(config);
  findSource(cfg, name);
  const rt = buildRuntime(cfg, options);
  const source = await rt.repo.getSource(name);
  if (!source) {
    await closeRuntime(rt);
    return { requested: 0, confirmed: 0 };
  }
  await rt.repo.updateSource(source.id, { subscriptionDisabled: true });
  let server: Server | undefined;
  try {
    const intake = createIntake({
      repo: rt.repo,
      logger: rt.logger,
      metrics: rt.metrics,
      clock: rt.clock,
      leasePolicy: rt.leasePolicy,
      maxBodyBytes: cfg.maxNotificationBytes,
      basePath: intakeBasePath(cfg),
      sourceName: () => name,
      onDelivered: () => undefined,
      onSubscriptionChanged: () => undefined,
    });
    const s = createServer(intake.listener);
    try {
      await listen(s, cfg.listen.host, cfg.listen.port);
      server = s;
    } catch {
      // The daemon holds the address: it answers the verification from the same database.
    }
    const deps: SubscriptionDeps = {
      repo: rt.repo,
      dispatcher: rt.hubAgent,
      outbound: { allowPrivateNetworks: cfg.allowPrivateNetworks },
      leasePolicy: rt.leasePolicy,
      callbackBase: '',
      logger: rt.logger,
      clock: rt.clock,
      random: rt.random,
    };
    const live = (await rt.repo.listSubscriptions(source.id)).filter(
      (s) => s.state === 'active' || s.state === 'pending-subscribe',
    );
    const accepted: number[] = [];
    for (const sub of live) {
      const outcome = await sendUnsubscribe(deps, sub, 'disabled');
      if (outcome.kind === 'accepted') accepted.push(sub.id);
    }
    const deadline = Date.now() + (options.waitMs ?? 30_000);
    let confirmed = 0;
    while (Date.now() < deadline && accepted.length > 0) {
      const subs = await rt.repo.listSubscriptions(source.id);
      confirmed = subs.filter((s) => accepted.includes(s.id) && s.state === 'unsubscribed').length;
      if (confirmed === accepted.length) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    return { requested: live.length, confirmed };
  } finally {
    if (server) await new Promise<void>((r) => server!.close(() => r()));
    await closeRuntime(rt);
  }
}
