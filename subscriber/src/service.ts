// The daemon: one store, one intake server, one outbound HTTP path, and a SourceRunner per configured
// source (runner/), started and stopped cleanly; plus the one-shot operations the CLI offers over the
// same store (sync, audit, status, unsubscribe). Protocol decisions live in the pure modules.
import { existsSync, mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import { createOutboundAgent } from '@rsnotify/shared';
import { auditMirror, type AuditReport, type ReconcileResult } from './audit/index.js';
import {
  assertWritableDirectory,
  callbackBase,
  resolveConfig,
  type ResolvedConfig,
  type SourceConfig,
  type SubscriberConfig,
} from './config.js';
import { discoverSource, pageFetcherFrom } from './discovery/index.js';
import { createIntakeApp } from './intake/index.js';
import { createHttpGetter } from './mirror/index.js';
import { createLogger, createMetrics, type Logger } from './observability/index.js';
import { SourceRunner, type CatchUpOutcome, type Runtime } from './runner/index.js';
import { sourceStatus, type SourceStatus } from './status/index.js';
import { createStatusRoutes } from './status/routes.js';
import { openSqliteStore } from './store/index.js';
import {
  DEFAULT_LEASE_POLICY,
  unsubscribe as sendUnsubscribe,
  type LeasePolicy,
  type SubscriptionDeps,
} from './subscription/index.js';
import { SubscriberError } from './errors/index.js';
import { systemClock, systemRandom, type Clock, type Random } from '@rsnotify/service-kit';

export interface RunningSubscriber {
  /** Base of the callback URLs given to hubs (publicUrl, or http://host:boundPort). */
  readonly callbackBaseUrl: string;
  /** The port the intake server listens on. */
  readonly port: number;
  /** The port of the separate status server (config statusListen), if one runs. */
  readonly statusPort?: number;
  status(): Promise<SourceStatus[]>;
  close(): Promise<void>;
}

/** The runtime's decisions read the time as a function; the options take the shared Clock. */
function clockFunction(clock: Clock): () => number {
  return () => clock.now();
}

export interface StartOptions {
  /** Inject a logger (tests); default JSON lines on stdout at config.logLevel. */
  readonly logger?: Logger;
  /** Wall-clock time for every decision (tests use a manual clock); default the system clock. */
  readonly clock?: Clock;
  /** Randomness for retry jitter; default Math.random. */
  readonly random?: Random;
  /** Overrides of the lease policy (tests use short timeouts). */
  readonly leasePolicy?: Partial<LeasePolicy>;
}

const DB_FILE = 'subscriber.db';

// ---- the daemon

async function listen(server: Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

function buildRuntime(cfg: ResolvedConfig, options: StartOptions): Omit<Runtime, 'subDeps'> {
  mkdirSync(cfg.dataDir, { recursive: true });
  const logger = options.logger ?? createLogger(cfg.logLevel);
  const repo = openSqliteStore({ file: join(cfg.dataDir, DB_FILE) });
  const perHost = Math.max(4, ...cfg.sources.map((s) => s.fetchConcurrencyPerHost));
  const http = createHttpGetter({
    allowPrivateNetworks: cfg.allowPrivateNetworks,
    perHostConcurrency: perHost,
  });
  return {
    cfg,
    repo,
    logger,
    metrics: createMetrics(),
    http,
    fetcher: pageFetcherFrom(http),
    hubAgent: createOutboundAgent({
      allowPrivateNetworks: cfg.allowPrivateNetworks,
      connections: 4,
    }),
    clock: clockFunction(options.clock ?? systemClock),
    random: options.random ?? systemRandom,
    leasePolicy: {
      ...DEFAULT_LEASE_POLICY,
      retryInitialMs: cfg.retry.initialDelay,
      retryMaxMs: cfg.retry.maxDelay,
      verificationTimeoutMs: cfg.verificationTimeout,
      ...options.leasePolicy,
    },
  };
}

async function closeRuntime(rt: Omit<Runtime, 'subDeps'>): Promise<void> {
  await rt.http.close().catch(() => undefined);
  await rt.hubAgent.close().catch(() => undefined);
  await rt.repo.close();
}

const INBOX_RETENTION_MS = 3_600_000;
const HISTORY_RETENTION_MS = 7 * 24 * 3_600_000;
const PRUNE_INTERVAL_MS = 600_000;

export async function startSubscriber(
  config: SubscriberConfig | ResolvedConfig,
  options: StartOptions = {},
): Promise<RunningSubscriber> {
  const cfg = resolveConfig(config);
  assertWritableDirectory('dataDir', cfg.dataDir);
  cfg.sources.forEach((s, i) =>
    assertWritableDirectory(`sources[${i}].mirrorDir (${s.name})`, s.mirrorDir),
  );
  const base = buildRuntime(cfg, options);
  const runners = new Map<number, SourceRunner>();
  const app = createIntakeApp({
    repo: base.repo,
    logger: base.logger,
    metrics: base.metrics,
    clock: base.clock,
    leasePolicy: base.leasePolicy,
    maxBodyBytes: cfg.maxNotificationBytes,
    basePath: cfg.publicUrl ? new URL(cfg.publicUrl).pathname.replace(/\/+$/, '') : '',
    sourceName: (id) => runners.get(id)?.cfg.name ?? String(id),
    onDelivered: (sourceId, inboxId, body, receivedAt) =>
      runners.get(sourceId)?.delivered(inboxId, body, receivedAt),
    onSubscriptionChanged: (rec) => runners.get(rec.sourceId)?.subscriptionChanged(rec),
  });
  const statusRoutes = createStatusRoutes({
    status: () => Promise.all([...runners.values()].map((r) => r.status())),
    clock: base.clock,
    ...(cfg.statusToken !== undefined ? { token: cfg.statusToken } : {}),
  });
  if (!cfg.statusListen) app.route('/', statusRoutes);
  const statusServer = cfg.statusListen
    ? (createAdaptorServer({ fetch: statusRoutes.fetch }) as Server)
    : undefined;
  const server = createAdaptorServer({ fetch: app.fetch, autoCleanupIncoming: false }) as Server;
  let port: number;
  let statusPort: number | undefined;
  try {
    port = await listen(server, cfg.listen.host, cfg.listen.port);
    if (statusServer && cfg.statusListen)
      statusPort = await listen(statusServer, cfg.statusListen.host, cfg.statusListen.port);
  } catch (err) {
    server.close();
    await closeRuntime(base);
    throw err;
  }
  const callbackBaseUrl = callbackBase(cfg, port);
  const rt: Runtime = {
    ...base,
    subDeps: {
      repo: base.repo,
      dispatcher: base.hubAgent,
      outbound: { allowPrivateNetworks: cfg.allowPrivateNetworks },
      leasePolicy: base.leasePolicy,
      callbackBase: callbackBaseUrl,
      logger: base.logger,
      clock: base.clock,
      random: base.random,
    },
  };
  base.logger.info(
    {
      event: 'subscriber.listening',
      url: callbackBaseUrl,
      port,
      sources: cfg.sources.map((s) => s.name),
    },
    'subscriber.listening',
  );

  for (const sc of cfg.sources) {
    const runner = new SourceRunner(rt, sc, true);
    await runner.init();
    runners.set(runner.sourceId, runner);
  }
  for (const runner of runners.values()) runner.start();

  // Finished inbox rows are kept an hour for inspection, events and catch-ups a week; the running
  // totals that `status` shows live on the source row and survive this.
  const prune = setInterval(() => {
    const now = base.clock();
    for (const r of runners.values()) {
      void base.repo.pruneInbox(r.sourceId, now - INBOX_RETENTION_MS).catch(() => undefined);
      void base.repo.pruneHistory(r.sourceId, now - HISTORY_RETENTION_MS).catch(() => undefined);
    }
  }, PRUNE_INTERVAL_MS);
  prune.unref();

  let closing: Promise<void> | undefined;
  return {
    callbackBaseUrl,
    port,
    ...(statusPort !== undefined ? { statusPort } : {}),
    async status() {
      return Promise.all([...runners.values()].map((r) => r.status()));
    },
    close() {
      closing ??= (async () => {
        clearInterval(prune);
        statusServer?.close();
        statusServer?.closeAllConnections();
        // Stop taking deliveries first; a hub retries what we did not answer.
        const closed = new Promise<void>((r) => server.close(() => r()));
        server.closeIdleConnections();
        const force = setTimeout(() => server.closeAllConnections(), 5_000);
        await Promise.all([...runners.values()].map((r) => r.stop(15_000)));
        await closed;
        clearTimeout(force);
        base.logger.info({ event: 'subscriber.stopped' }, 'subscriber.stopped');
        await closeRuntime(base);
      })();
      return closing;
    },
  };
}

// ---- one-shot commands over the same store (`sync`, `audit`, `unsubscribe`, `status`)

function findSource(cfg: ResolvedConfig, name: string): SourceConfig {
  const sc = cfg.sources.find((s) => s.name === name);
  if (!sc)
    throw new SubscriberError(
      'RSN_SOURCE_UNKNOWN',
      `no source named ${JSON.stringify(name)} in the config (have: ${cfg.sources.map((s) => s.name).join(', ') || 'none'})`,
    );
  return sc;
}

/** `sync NAME`: one baseline (without a position) or one catch-up, without the hub. */
export async function syncSource(
  config: SubscriberConfig | ResolvedConfig,
  name: string,
  options: StartOptions = {},
): Promise<{ syncedUntil?: string; outcome: CatchUpOutcome }> {
  const cfg = resolveConfig(config);
  const rt = buildRuntime(cfg, options);
  try {
    const runner = new SourceRunner(rt, findSource(cfg, name), false);
    await runner.init();
    try {
      return await runner.syncOnce();
    } finally {
      await runner.stop(1_000);
    }
  } finally {
    await closeRuntime(rt);
  }
}

/** `audit NAME --repair`: one reconciliation (audit, then repair through the verified writer). */
export async function repairSource(
  config: SubscriberConfig | ResolvedConfig,
  name: string,
  options: StartOptions = {},
): Promise<ReconcileResult> {
  const cfg = resolveConfig(config);
  const rt = buildRuntime(cfg, options);
  try {
    const runner = new SourceRunner(rt, findSource(cfg, name), false);
    await runner.init();
    try {
      return await runner.repairOnce();
    } finally {
      await runner.stop(1_000);
    }
  } finally {
    await closeRuntime(rt);
  }
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
    const app = createIntakeApp({
      repo: rt.repo,
      logger: rt.logger,
      metrics: rt.metrics,
      clock: rt.clock,
      leasePolicy: rt.leasePolicy,
      maxBodyBytes: cfg.maxNotificationBytes,
      basePath: cfg.publicUrl ? new URL(cfg.publicUrl).pathname.replace(/\/+$/, '') : '',
      sourceName: () => name,
      onDelivered: () => undefined,
      onSubscriptionChanged: () => undefined,
    });
    const s = createAdaptorServer({ fetch: app.fetch }) as Server;
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
