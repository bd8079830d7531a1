// The jobs that must run once: per process with SQLite, per cluster (on the leader) with
// PostgreSQL: the verification worker (WH-9 intents), the expiry sweep and the pruning of delivered
// notifications past the replay window.
import { describeError } from '@rsnotify/shared';
import type { Dispatcher } from 'undici';
import type { LeaderJobs } from './cluster/index.js';
import type { DeliveryScheduler } from './delivery/index.js';
import type { HubMetrics, Logger } from './observability/index.js';
import type { HubRepository, PostgresRepository } from './store/index.js';
import { VerificationWorker, type SubscriptionService } from './subscriptions/index.js';

const SWEEP_INTERVAL_MS = 1_000;
const PRUNE_INTERVAL_MS = 60_000;

export interface HubJobDeps {
  readonly store: HubRepository;
  readonly pgStore: PostgresRepository | undefined;
  readonly agent: Dispatcher;
  readonly logger: Logger;
  readonly metrics: HubMetrics;
  readonly now: () => number;
  readonly requestTimeoutMs: number;
  readonly replayWindowMs: number;
  readonly subscriptions: SubscriptionService;
  readonly deliveries: DeliveryScheduler;
  /** Told of the running worker (and of undefined once it stopped), so new intents can wake it. */
  readonly onWorker: (worker: VerificationWorker | undefined) => void;
}

export function startHubJobs(d: HubJobDeps): LeaderJobs {
  const { store, logger, now, deliveries } = d;
  const worker = new VerificationWorker({
    store,
    agent: d.agent,
    logger,
    metrics: d.metrics,
    now,
    timeoutMs: d.requestTimeoutMs,
    concurrency: 32,
    onSubscribed: (s) => deliveries.upsert(s),
    onUnsubscribed: (s) => deliveries.remove(s.id),
  });
  d.onWorker(worker);
  const offIntent = d.pgStore?.events.on((e) => {
    if (e.kind === 'intent' || e.kind === 'resync') worker.wake();
  });
  worker.start();
  const sweep = setInterval(() => {
    d.subscriptions
      .sweepExpired()
      .catch((err: unknown) =>
        logger.error({ event: 'store.error', err: describeError(err) }, 'expiry sweep failed'),
      );
  }, SWEEP_INTERVAL_MS);
  // A prune goes a batch per turn (a large one may take longer than the interval): one at a time,
  // and awaited by stop() so the store is not closed under it.
  let pruning: Promise<void> | undefined;
  const prune = setInterval(() => {
    if (pruning) return;
    pruning = store
      .pruneNotifications(now() - d.replayWindowMs)
      .then((n) => {
        if (n > 0)
          logger.debug(
            { event: 'notification.pruned', count: n },
            'pruned delivered notifications',
          );
      })
      .catch((err: unknown) =>
        logger.error({ event: 'store.error', err: describeError(err) }, 'prune failed'),
      )
      .finally(() => {
        pruning = undefined;
      });
  }, PRUNE_INTERVAL_MS);
  sweep.unref();
  prune.unref();
  return {
    async stop() {
      clearInterval(sweep);
      clearInterval(prune);
      offIntent?.();
      d.onWorker(undefined);
      await worker.close();
      await pruning;
    },
  };
}
