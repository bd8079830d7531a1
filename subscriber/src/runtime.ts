// What the daemon and the one-shot commands share: the runtime they build over one config (store,
// logger, metrics, outbound HTTP, clock, lease policy), how it is closed, and how a server listens.
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createOutboundAgent } from '@rsnotify/shared';
import { systemClock, systemRandom, type Clock, type Random } from '@rsnotify/service-kit';
import type { ResolvedConfig } from './config.js';
import { pageFetcherFrom } from './discovery/index.js';
import { createHttpGetter } from './mirror/index.js';
import { createLogger, createMetrics, type Logger } from './observability/index.js';
import type { Runtime } from './runner/index.js';
import { openSqliteStore } from './store/index.js';
import { DEFAULT_LEASE_POLICY, type LeasePolicy } from './subscription/index.js';

/** The runtime's decisions read the time as a function; the options take the shared Clock. */
export function clockFunction(clock: Clock): () => number {
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

export const DB_FILE = 'subscriber.db';

export async function listen(server: Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

export function buildRuntime(cfg: ResolvedConfig, options: StartOptions): Omit<Runtime, 'subDeps'> {
  const startedAtMs = Date.now();
  mkdirSync(cfg.dataDir, { recursive: true });
  const logger = options.logger ?? createLogger(cfg.logLevel);
  const file = join(cfg.dataDir, DB_FILE);
  const repo = openSqliteStore({
    file,
    // The WAL is then checkpointed inside commits again, on the event loop: slower, not broken.
    onCheckpointFailed: (error) =>
      logger.warn({ event: 'store.checkpoint_failed', file, error }, 'store.checkpoint_failed'),
  });
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
    startedAtMs,
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

export async function closeRuntime(rt: Omit<Runtime, 'subDeps'>): Promise<void> {
  await rt.http.close().catch(() => undefined);
  await rt.hubAgent.close().catch(() => undefined);
  await rt.repo.close();
}
/** The path prefix of the callback URLs (publicUrl's path, without a trailing slash). */
export function intakeBasePath(cfg: ResolvedConfig): string {
  return cfg.publicUrl ? new URL(cfg.publicUrl).pathname.replace(/\/+$/, '') : '';
}
