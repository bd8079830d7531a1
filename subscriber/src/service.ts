// The daemon: one store, one intake server, one outbound HTTP path, and a SourceRunner per configured
// source (runner/), started and stopped cleanly. The one-shot operations the CLI offers over the same
// store (sync, audit, status, unsubscribe) are in commands.ts; what both build is in runtime.ts.
// Protocol decisions live in the pure modules.
import { createServer, type Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import {
  assertWritableDirectory,
  callbackBase,
  resolveConfig,
  type ResolvedConfig,
  type SubscriberConfig,
} from './config.js';
import { createIntake } from './intake/index.js';
import { recordRejection, watchClientErrors } from './observability/index.js';
import { SourceRunner, type Runtime } from './runner/index.js';
import {
  buildRuntime,
  closeRuntime,
  intakeBasePath,
  listen,
  type StartOptions,
} from './runtime.js';
import { createStatusRoutes, type SourceStatus } from './status/index.js';

export type { StartOptions } from './runtime.js';
export {
  auditSource,
  readStatus,
  repairSource,
  syncSource,
  unsubscribeSource,
} from './commands.js';

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
  const intake = createIntake({
    repo: base.repo,
    logger: base.logger,
    metrics: base.metrics,
    clock: base.clock,
    leasePolicy: base.leasePolicy,
    maxBodyBytes: cfg.maxNotificationBytes,
    basePath: intakeBasePath(cfg),
    sourceName: (id) => runners.get(id)?.cfg.name ?? String(id),
    onDelivered: (sourceId, inboxId, body, receivedAt) =>
      runners.get(sourceId)?.delivered(inboxId, body, receivedAt),
    onSubscriptionChanged: (rec) => runners.get(rec.sourceId)?.subscriptionChanged(rec),
  });
  const statusRoutes = createStatusRoutes({
    status: () => Promise.all([...runners.values()].map((r) => r.status())),
    clock: base.clock,
    ...(cfg.statusToken !== undefined ? { token: cfg.statusToken } : {}),
    onRejected: (status, reason) =>
      recordRejection(base.metrics, base.logger, status, reason, 'status'),
  });
  if (!cfg.statusListen) intake.app.route('/', statusRoutes);
  const statusServer = cfg.statusListen
    ? (createAdaptorServer({ fetch: statusRoutes.fetch }) as Server)
    : undefined;
  const server = createServer(intake.listener);
  watchClientErrors(server, base.metrics, base.logger, 'intake');
  if (statusServer) watchClientErrors(statusServer, base.metrics, base.logger, 'status');
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
