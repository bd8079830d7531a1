// startHub: wires store, services, workers and the HTTP server into one running hub, and takes them
// down in the right order (stop accepting, let in-flight work finish or stay queued, close the DB).
// With PostgreSQL (--db postgres://...) the process is one of a cluster: it drives only the
// subscriptions it has claimed, wakes on other processes' commits (LISTEN), and runs the
// once-per-cluster jobs only while it holds the leader lock (hub/src/cluster/).
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { createOutboundAgent, describeError } from '@rsnotify/shared';
import { createApp } from './app.js';
import {
  DEFAULT_BRIDGE_POLL_INTERVAL_MS,
  resolveHubConfig,
  resolvePublicUrl,
  type HubConfig,
  type HubOptions,
} from './config.js';
import { DeliveryScheduler, NotificationCache } from './delivery/index.js';
import { createSender } from './outbound/index.js';
import { createLogger, HubMetrics, type Logger } from './observability/index.js';
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
import {
  BridgeError,
  BridgeService,
  mountBridgeRoutes,
  type BridgedSourceView,
} from './bridge/index.js';
import { SubscriptionService, VerificationWorker } from './subscriptions/index.js';
import { TenantDirectory } from './tenants/index.js';
import { AdminService, hubAdmin } from './admin/index.js';
import { systemClock, systemRandom, type Clock, type Random } from '@rsnotify/service-kit';

export interface RunningHub {
  /** The hub endpoint URL (publicUrl resolved with the real port). */
  readonly url: string;
  readonly port: number;
  /** Same as `rsnotify-hub source add`: registers a Source and returns its token (shown once). */
  addSource(
    name: string,
    topicPrefixes: string[],
    options?: { allowCallbacks?: string[] },
  ): Promise<{ token: string }>;
  /** Same as `rsnotify-hub source add NAME --poll URL`: the hub polls it and publishes on `{url}/bridge/NAME`. */
  addBridgedSource(
    name: string,
    pollUrl: string,
    options?: { intervalMs?: number },
  ): Promise<BridgedSourceView>;
  listBridgedSources(): Promise<BridgedSourceView[]>;
  removeBridgedSource(name: string): Promise<boolean>;
  /** Requests the bridge sent to an origin since start (tests, bench). */
  bridgeRequestsTo(origin: string): number;
  /** Graceful: stop accepting, finish or persist in-flight work, close the database. */
  close(): Promise<void>;
}

const SWEEP_INTERVAL_MS = 1_000;
const PRUNE_INTERVAL_MS = 60_000;

/** What startHub takes besides its options: the same dependency bag as startSubscriber's. */
export interface HubDependencies {
  /** Inject a logger (tests); default JSON lines on stdout at the configured level. */
  readonly logger?: Logger;
  /** Wall-clock time for every decision (tests use a manual clock); default the system clock. */
  readonly clock?: Clock;
  /** Randomness for retry jitter; default Math.random. */
  readonly random?: Random;
}

export async function startHub(options: HubOptions & HubDependencies): Promise<RunningHub> {
  const config: HubConfig = resolveHubConfig(
    stripUndefined({ ...options, logger: undefined, clock: undefined, random: undefined }),
  );
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const random = options.random ?? systemRandom;
  const now = () => clock.now();
  const where = parseDbLocation(config.dbFile);
  // The bridge's tables live beside the SQLite engine's (one connection, one transaction per poll);
  // the PostgreSQL engine has no bridge store yet.
  const sqliteStores = where.engine === 'sqlite' ? openSqliteStores(where.file) : undefined;
  if (!sqliteStores && config.bridge.sources.length > 0) {
    throw new BridgeError(
      'RSN_BRIDGE_UNSUPPORTED',
      'bridged Sources (bridge.sources) need the SQLite store in this version, not PostgreSQL',
      {},
    );
  }
  const store: HubRepository = sqliteStores?.repository ?? (await openRepository(config.dbFile));
  const pgStore = where.engine === 'postgres' ? (store as PostgresRepository) : undefined;
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
  scheduler = new DeliveryScheduler({
    store,
    send: createSender(agent, { timeoutMs: config.requestTimeoutMs }),
    cache: new NotificationCache(64 * 1024 * 1024),
    logger,
    metrics,
    retry: config.retry,
    maxInFlight: config.maxInFlight,
    now,
    random,
    ownership: coordinator,
    // Stalled deliveries keep their connection: the per-origin ceiling is the connection pool's size.
    originBudget: {
      perOrigin: Math.min(8, config.connectionsPerOrigin),
      maxPerOrigin: config.connectionsPerOrigin,
    },
  });
  const deliveries = scheduler;
  let verifier: VerificationWorker | undefined;
  const subscriptions = new SubscriptionService({
    store,
    tenants,
    logger,
    leases: config.leases,
    outbound,
    now,
    // With PostgreSQL the leader hears of the new intent through the store's pg_notify as well.
    wakeVerifier: () => verifier?.wake(),
    onExpired: (s) => deliveries.remove(s.id),
  });

  /** The jobs that must run once (per process with SQLite, per cluster with PostgreSQL). */
  const startJobs = (): LeaderJobs => {
    const worker = new VerificationWorker({
      store,
      agent,
      logger,
      metrics,
      now,
      timeoutMs: config.requestTimeoutMs,
      concurrency: 32,
      onSubscribed: (s) => deliveries.upsert(s),
      onUnsubscribed: (s) => deliveries.remove(s.id),
    });
    verifier = worker;
    const offIntent = pgStore?.events.on((e) => {
      if (e.kind === 'intent' || e.kind === 'resync') worker.wake();
    });
    worker.start();
    const sweep = setInterval(() => {
      subscriptions
        .sweepExpired()
        .catch((err: unknown) =>
          logger.error({ event: 'store.error', err: describeError(err) }, 'expiry sweep failed'),
        );
    }, SWEEP_INTERVAL_MS);
    const prune = setInterval(() => {
      store
        .pruneNotifications(now() - config.replayWindowMs)
        .then((n) => {
          if (n > 0)
            logger.debug(
              { event: 'notification.pruned', count: n },
              'pruned delivered notifications',
            );
        })
        .catch((err: unknown) =>
          logger.error({ event: 'store.error', err: describeError(err) }, 'prune failed'),
        );
    }, PRUNE_INTERVAL_MS);
    sweep.unref();
    prune.unref();
    return {
      async stop() {
        clearInterval(sweep);
        clearInterval(prune);
        offIntent?.();
        if (verifier === worker) verifier = undefined;
        await worker.close();
      },
    };
  };
  let leader: ClusterLeader | undefined;
  let soleJobs: LeaderJobs | undefined;

  let accepting = true;
  let url = '';
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
        ? new ClusterTopicChecker(
            {
              agent,
              logger,
              metrics,
              outbound,
              now,
              intervalMs: 600_000,
              timeoutMs: config.requestTimeoutMs,
            },
            pgStore.cluster,
          )
        : new TopicChecker({
            agent,
            logger,
            metrics,
            outbound,
            now,
            intervalMs: 600_000,
            timeoutMs: config.requestTimeoutMs,
          }),
  };
  const publishing = new PublishingService(publishingDeps);
  const bridge =
    sqliteStores &&
    new BridgeService({
      store: sqliteStores.bridge,
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
      send: createSender(agent, { timeoutMs: config.requestTimeoutMs }),
      onSubscriptionDeleted: (id) => deliveries.remove(id),
    }),
  });
  const hubPath = new URL(config.publicUrl ?? 'http://x/hub').pathname;
  const app = createApp({
    hubPath,
    subscriptions,
    publishing,
    metrics,
    logger,
    maxBodyBytes: config.maxBodyBytes,
    maxFormBytes: 64 * 1024,
    maxUnauthenticatedBodyBytes: config.maxUnauthenticatedBodyBytes,
    ping: () => store.ping(),
    accepting: () => accepting,
    admin,
    mounts: bridge ? [(a) => mountBridgeRoutes(a, hubPath, bridge, () => url)] : [],
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

  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve(
      {
        fetch: app.fetch,
        port: config.port,
        hostname: config.host,
        // Refused bodies are drained by the app itself, within its own bounds (service-kit body-limit).
        autoCleanupIncoming: false,
        serverOptions: {
          requestTimeout: 60_000,
          headersTimeout: 15_000,
          maxHeaderSize: 16 * 1024,
          keepAliveTimeout: 30_000,
        },
      },
      () => resolve(s as Server),
    ) as Server;
    s.once('error', reject);
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
  server.on('clientError', (err, socket) => {
    // Malformed, oversized or too slow request heads: a defined status, a log line, nothing more.
    const code = (err as { code?: string }).code;
    const status = clientErrorStatus(code, (err as { reason?: string }).reason);
    logger.info(
      { event: 'request.client_error', code, status: Number.parseInt(status, 10) },
      'malformed or oversized request',
    );
    metrics.requestsRejected.inc({ status: status.slice(0, 3), reason: code ?? 'client_error' });
    if (socket.writable)
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    else socket.destroy();
  });

  let seenMarker = store.externalChangeMarker();
  const bridgeRefresh =
    bridge &&
    setInterval(() => {
      // `rsnotify-hub source add --poll` from another process: start polling without a restart.
      const marker = store.externalChangeMarker();
      if (marker === seenMarker) return;
      seenMarker = marker;
      bridge
        .refresh()
        .catch((err: unknown) =>
          logger.error({ event: 'store.error', err: describeError(err) }, 'bridge refresh failed'),
        );
    }, 2_000);
  bridgeRefresh?.unref();
  for (const b of config.bridge.sources)
    await bridge!.add(b.name, b.poll, b.intervalMs, { ensure: true });
  await bridge?.start();

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
      if (!bridge)
        throw new BridgeError(
          'RSN_BRIDGE_UNSUPPORTED',
          'bridged Sources need the SQLite store in this version',
          {},
        );
      return bridge.add(name, pollUrl, o.intervalMs ?? DEFAULT_BRIDGE_POLL_INTERVAL_MS);
    },
    listBridgedSources: async () => (bridge ? bridge.list() : []),
    removeBridgedSource: async (name: string) => (bridge ? bridge.remove(name) : false),
    bridgeRequestsTo: (origin: string) => bridge?.requestsTo(origin) ?? 0,
    close() {
      closing ??= (async () => {
        accepting = false;
        const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        if (bridgeRefresh) clearInterval(bridgeRefresh);
        await bridge?.close();
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

/** The answer to a request head Node's parser refused (nothing of it reached the app). */
function clientErrorStatus(code: string | undefined, reason: string | undefined): string {
  if (code === 'HPE_HEADER_OVERFLOW') return '431 Request Header Fields Too Large';
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return '408 Request Timeout';
  // RFC 9112 §6.1: a transfer coding we do not implement (but Transfer-Encoding together with
  // Content-Length, which the parser reports under the same code, is a smuggling shape: 400).
  if (code === 'HPE_INVALID_TRANSFER_ENCODING' && !/content-length/i.test(reason ?? ''))
    return '501 Not Implemented';
  return '400 Bad Request';
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
