// startHub: wires store, services, workers and the HTTP server into one running hub, and takes them
// down in the right order (stop accepting, let in-flight work finish or stay queued, close the DB).
// With PostgreSQL (--db postgres://...) the process is one of a cluster: it drives only the
// subscriptions it has claimed, wakes on other processes' commits (LISTEN), and runs the
// once-per-cluster jobs only while it holds the leader lock (hub/src/cluster/).
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import { createOutboundAgent, describeError } from '@rsnotify/shared';
import { createApp } from './app.js';
import { createHubEndpoint } from './hub-endpoint.js';
import {
  DEFAULT_BRIDGE_POLL_INTERVAL_MS,
  resolveHubConfig,
  resolvePublicUrl,
  type HubConfig,
  type HubOptions,
} from './config.js';
import { DeliveryScheduler, NotificationCache, cacheBytesFor } from './delivery/index.js';
import { createSender } from './outbound/index.js';
import { createLogger, HubMetrics } from './observability/index.js';
import { PublishingService, TopicChecker } from './publishing/index.js';
import {
  openAdminStore,
  openRepository,
  openSqliteStores,
  parseDbLocation,
  type HubRepository,
  type PostgresRepository,
} from './store/index.js';
import {
  ClusterCoordinator,
  ClusterLeader,
  ClusterTopicChecker,
  registerClusterMetrics,
  type LeaderJobs,
} from './cluster/index.js';
import { BridgeService, mountBridgeRoutes } from './bridge/index.js';
import { SubscriptionService, type VerificationWorker } from './subscriptions/index.js';
import { startListener } from './listener/index.js';
import { startHubJobs } from './jobs.js';
import { watchExternalChanges } from './external-changes.js';
import { PLAINTEXT_SECRETS, checkStoredSecrets, loadSecretKeyFile } from './secrets/index.js';
import { TenantDirectory } from './tenants/index.js';
import { AdminService, hubAdmin } from './admin/index.js';
import { systemClock, systemRandom } from '@rsnotify/service-kit';
import type { HubDependencies, RunningHub } from './running-hub.js';

export type { HubDependencies, RunningHub } from './running-hub.js';

export async function startHub(options: HubOptions & HubDependencies): Promise<RunningHub> {
  const config: HubConfig = resolveHubConfig(
    stripUndefined({ ...options, logger: undefined, clock: undefined, random: undefined }),
  );
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const random = options.random ?? systemRandom;
  const now = () => clock.now();
  const where = parseDbLocation(config.dbFile);
  // A wrong key file is a startup error, before anything is opened or listened on.
  const secrets = config.secretKeyFile
    ? loadSecretKeyFile(config.secretKeyFile)
    : PLAINTEXT_SECRETS;
  // The bridge's tables live beside the hub's (SQLite: one connection; PostgreSQL: one pool), so a
  // poll commits in one transaction with the notifications it made. A failed checkpointer is logged.
  const onCheckpointFailed = (error: string): void =>
    logger.warn(
      { event: 'store.checkpoint_failed', file: config.dbFile, error },
      'checkpoint failed',
    );
  const sqliteStores =
    where.engine === 'sqlite' ? openSqliteStores(where.file, { onCheckpointFailed }) : undefined;
  const store: HubRepository = sqliteStores?.repository ?? (await openRepository(config.dbFile));
  const pgStore = where.engine === 'postgres' ? (store as PostgresRepository) : undefined;
  try {
    await checkStoredSecrets(store, secrets);
  } catch (err) {
    await store.close();
    throw err;
  }
  const openSecret = (stored: string): string => secrets.open(stored);
  const bridgeStore = sqliteStores?.bridge ?? pgStore!.bridge;
  // Bridged Sources are polled by the process that runs the once-per-cluster jobs, once it listens.
  let bridgeJobs: { poll: boolean; ready: boolean } = { poll: false, ready: false };
  const nodeId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const dbLabel = pgStore ? `postgres://${pgStore.target.display}` : config.dbFile;
  const outbound = { allowPrivateNetworks: config.allowPrivateNetworks };
  const agent = createOutboundAgent({
    ...outbound,
    connections: config.connectionsPerOrigin,
    headersTimeoutMs: config.requestTimeoutMs,
    bodyTimeoutMs: config.requestTimeoutMs,
    connectTimeoutMs: Math.min(5_000, config.requestTimeoutMs),
  });
  const tenants = new TenantDirectory(store, now);
  let scheduler: DeliveryScheduler | undefined;
  let coordinator: ClusterCoordinator | undefined;
  const metrics = new HubMetrics({
    subscriptionCounts: () => store.countSubscriptions(now()),
    queueDepth: () => scheduler?.queueDepth() ?? 0,
    inFlight: () => scheduler?.inFlightCount() ?? 0,
  });
  if (pgStore) {
    coordinator = new ClusterCoordinator({
      store: pgStore,
      scheduler: () => deliveries,
      logger,
      nodeId,
    });
  }
  // One sender for the deliveries and the console's test deliveries: the same agent and timeout.
  const send = createSender(agent, { timeoutMs: config.requestTimeoutMs });
  scheduler = new DeliveryScheduler({
    openSecret,
    store,
    send,
    cache: new NotificationCache(cacheBytesFor(config.maxBodyBytes)),
    logger,
    metrics,
    retry: config.retry,
    maxInFlight: config.maxInFlight,
    now,
    random,
    ownership: coordinator,
    // Stalled deliveries keep their connection: the per-origin ceiling is the connection pool's size.
    originBudget: { maxPerOrigin: config.connectionsPerOrigin },
  });
  const deliveries = scheduler;
  let verifier: VerificationWorker | undefined;
  const subscriptions = new SubscriptionService({
    sealSecret: (secret) => secrets.seal(secret),
    store,
    tenants,
    logger,
    leases: config.leases,
    outbound,
    now,
    // With PostgreSQL the leader hears of the new intent through the store's pg_notify as well.
    intentQueued: (intent) => verifier?.queued(intent),
    onExpired: (s) => deliveries.remove(s.id),
  });

  /** The jobs that must run once (per process with SQLite, per cluster with PostgreSQL). */
  const startJobs = (): LeaderJobs => {
    const jobs = startHubJobs({
      store,
      pgStore,
      agent,
      logger,
      metrics,
      now,
      requestTimeoutMs: config.requestTimeoutMs,
      replayWindowMs: config.replayWindowMs,
      subscriptions,
      deliveries,
      onWorker: (w) => (verifier = w),
    });
    bridgeJobs = { ...bridgeJobs, poll: true };
    if (bridgeJobs.ready) void bridge.startPolling().catch(logBridgeError);
    return {
      async stop() {
        bridgeJobs = { ...bridgeJobs, poll: false };
        await bridge.stopPolling();
        await jobs.stop();
      },
    };
  };
  let leader: ClusterLeader | undefined;
  let soleJobs: LeaderJobs | undefined;

  let accepting = true;
  let url = '';
  const topicCheck = {
    agent,
    logger,
    metrics,
    outbound,
    now,
    intervalMs: 600_000,
    timeoutMs: config.requestTimeoutMs,
  };
  const publishingDeps = {
    store,
    tenants,
    logger,
    metrics,
    openPublishing: config.openPublishing,
    outbound,
    agent,
    get hubUrl() {
      return url;
    },
    maxBodyBytes: config.maxBodyBytes,
    fetchTimeoutMs: config.requestTimeoutMs,
    now,
    onAccepted: (n: Parameters<DeliveryScheduler['published']>[0]) => deliveries.published(n),
    topicChecker: !config.checkTopics
      ? undefined
      : pgStore
        ? new ClusterTopicChecker(topicCheck, pgStore.cluster)
        : new TopicChecker(topicCheck),
  };
  const publishing = new PublishingService(publishingDeps);
  const logBridgeError = (err: unknown) =>
    logger.error({ event: 'store.error', err: describeError(err) }, 'bridge start failed');
  const bridge = new BridgeService({
    store: bridgeStore,
    agent,
    logger,
    registry: metrics.registry,
    outbound,
    now,
    random: Math.random,
    hubUrl: () => url,
    requestTimeoutMs: config.requestTimeoutMs,
    maxDocumentBytes: config.bridge.maxDocumentBytes,
    maxEntriesPerNotification: config.bridge.maxEntriesPerNotification,
    maxNotificationBytes: config.maxBodyBytes,
    onAccepted: (n) => {
      metrics.notificationsAccepted.inc({ kind: 'bridge' });
      deliveries.published(n);
    },
  });

  try {
    await scheduler.start();
    if (pgStore && coordinator) {
      const c = coordinator;
      await c.start();
      leader = new ClusterLeader({ lock: pgStore.cluster.leaderLock(), logger, nodeId, startJobs });
      await leader.start();
      const l = leader;
      registerClusterMetrics(metrics, {
        cluster: pgStore.cluster,
        claims: () => c.claims(),
        liveNodes: () => c.liveNodes,
        leader: () => l.isLeader,
      });
    } else {
      soleJobs = startJobs();
    }
  } catch (err) {
    await coordinator?.close().catch(() => undefined);
    await leader?.close().catch(() => undefined);
    await store.close();
    throw err;
  }

  const adminStore = await openAdminStore(config.dbFile);
  const admin = hubAdmin({
    store: adminStore,
    now,
    logger,
    service: new AdminService({
      repo: store,
      admin: adminStore,
      tenants,
      now,
      send,
      onSubscriptionDeleted: (id) => deliveries.remove(id),
      openSecret,
      bridge,
    }),
  });
  const hubPath = new URL(config.publicUrl ?? 'http://x/hub').pathname;
  const hubEndpoint = createHubEndpoint({
    subscriptions,
    publishing,
    metrics,
    logger,
    maxBodyBytes: config.maxBodyBytes,
    maxFormBytes: 64 * 1024,
    maxUnauthenticatedBodyBytes: config.maxUnauthenticatedBodyBytes,
    accepting: () => accepting,
    onRejected: admin.recordRejection,
  });
  const app = createApp({
    hubPath,
    metrics,
    logger,
    ping: () => store.ping(),
    admin,
    mounts: [(a) => mountBridgeRoutes(a, hubPath, bridge, () => url)],
    healthDetails: () =>
      pgStore
        ? {
            engine: 'postgres',
            db: pgStore.target.display,
            node: nodeId,
            claims: coordinator?.claims() ?? 0,
            liveNodes: coordinator?.liveNodes ?? 1,
            leader: leader?.isLeader ?? false,
            listening: pgStore.events.connected,
          }
        : {}, // SQLite: one process drives everything; the report stays { ok, database }
  });

  const server = await startListener({
    fetch: app.fetch,
    hubEndpoint: { path: hubPath, handle: hubEndpoint },
    host: config.host,
    port: config.port,
    maxConnectionsPerClient: config.maxConnectionsPerClient,
    logger,
    metrics,
  }).catch(async (err: unknown) => {
    await coordinator?.close().catch(() => undefined);
    await leader?.close().catch(() => undefined);
    await soleJobs?.stop();
    await adminStore.close();
    await store.close();
    throw err;
  });
  const port = (server.address() as AddressInfo).port;
  url = resolvePublicUrl(config, port);
  // Other processes' commits (a deleted subscription, a bridged Source added or removed) noticed
  // within a second: SQLite's data_version; PostgreSQL's marker moves on each Source change heard
  // through LISTEN (its subscriptions are followed by the cluster coordinator as well).
  const externalChanges = watchExternalChanges({
    store,
    deliveries,
    logger,
    refreshBridge: () => bridge.refresh(),
  });
  for (const b of config.bridge.sources)
    await bridge.add(b.name, b.poll, b.intervalMs, { ensure: true });
  await bridge.start({ poll: bridgeJobs.poll });
  bridgeJobs = { ...bridgeJobs, ready: true };
  // Leadership may have come while the registry loaded: poll now if so.
  if (bridgeJobs.poll) await bridge.startPolling();

  logger.info(
    {
      event: 'hub.listening',
      url,
      port,
      db: dbLabel,
      node: pgStore ? nodeId : undefined,
      openPublishing: config.openPublishing,
      allowPrivateNetworks: config.allowPrivateNetworks,
    },
    'hub listening',
  );

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    async addSource(
      name: string,
      topicPrefixes: string[],
      addOptions: { allowCallbacks?: string[] } = {},
    ) {
      const { token, source } = await tenants.addSource(
        name,
        topicPrefixes,
        addOptions.allowCallbacks ?? [],
      );
      logger.info(
        { event: 'source.added', name: source.name, topicPrefixes: source.topicPrefixes },
        'source registered',
      );
      return { token };
    },
    async addBridgedSource(name: string, pollUrl: string, o: { intervalMs?: number } = {}) {
      return bridge.add(name, pollUrl, o.intervalMs ?? DEFAULT_BRIDGE_POLL_INTERVAL_MS);
    },
    listBridgedSources: () => bridge.list(),
    removeBridgedSource: (name: string) => bridge.remove(name),
    bridgeRequestsTo: (origin: string) => bridge.requestsTo(origin),
    bridgePolling: () => bridge.isPolling,
    close() {
      closing ??= (async () => {
        accepting = false;
        const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        externalChanges.stop();
        await bridge.close();
        await Promise.all([soleJobs?.stop(), leader?.close(), deliveries.close()]);
        // Claims go back only after the cursors are saved, so the next owner starts where this one stopped.
        await coordinator?.close();
        // Requests still open after the workers stopped get cut; anything they had not committed was never answered 200.
        const cut = setTimeout(() => server.closeAllConnections(), 2_000);
        await serverClosed;
        clearTimeout(cut);
        await agent.close().catch(() => undefined);
        await adminStore.close();
        await store.close();
        logger.info({ event: 'hub.stopped', url }, 'hub stopped');
        await new Promise<void>((resolve) => logger.flush(() => resolve()));
      })();
      return closing;
    },
  };
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
