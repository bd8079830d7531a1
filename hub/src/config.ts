// The hub's options: the programmatic HubOptions (the agreed contract plus optional extras), the
// validated config-file shape, and their resolution into one HubConfig with every default filled in.
import { z } from 'zod';
import { ConfigError, parseDuration } from '@rsnotify/service-kit';
import { DEFAULT_LEASE_BOUNDS, type LeaseBounds } from './subscriptions/index.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './delivery/index.js';
import { parseDbLocation } from './store/index.js';
import { LOG_LEVELS } from '@rsnotify/service-kit';

export interface HubOptions {
  host?: string;
  port?: number;
  /** Default http://{host}:{port}/hub; the hub endpoint is served at its path. */
  publicUrl?: string;
  /** A SQLite file path, or postgres://user:password@host:port/dbname (several hub processes, one database). */
  dbFile: string;
  openPublishing?: boolean;
  allowPrivateNetworks?: boolean;
  leaseMinSeconds?: number;
  leaseDefaultSeconds?: number;
  leaseMaxSeconds?: number;
  retry?: { initialDelayMs?: number; maxDelayMs?: number; maxAgeMs?: number };
  logLevel?: string;
  // Extras beyond the contract (all optional):
  /** Timeout for each delivery, verification and topic fetch (headers and body), default 10 s. */
  requestTimeoutMs?: number;
  /** Largest accepted publish body (413 above), default 16 MiB. */
  maxBodyBytes?: number;
  /** Bytes of unauthenticated request bodies read at once over all connections (503 above), default 32 MiB. */
  maxUnauthenticatedBodyBytes?: number;
  /** Global limit of deliveries in flight, default 256. */
  maxInFlight?: number;
  /** Keep-alive connections per callback origin (also the ceiling of deliveries in flight to it), default 64. */
  connectionsPerOrigin?: number;
  /** RT-6: HEAD the topic after accepting a notification (at most every 10 min per topic), default true. */
  checkTopics?: boolean;
  /** Delivered notifications are kept this long before pruning, default 1 h. */
  replayWindowMs?: number;
  /** The poll-to-push bridge: Sources polled by the hub, and its limits. */
  bridge?: BridgeOptions;
  /** Open connections per client address on the listener (503 and close above; 0: unlimited), default 128. */
  maxConnectionsPerClient?: number;
  /** A key file (`rsnotify-hub secret-key create`): stored hub.secret values are encrypted with it. */
  secretKeyFile?: string;
}

export interface BridgeOptions {
  /** Added when missing at start (like `rsnotify-hub source add NAME --poll URL`). */
  sources?: { name: string; poll: string; pollInterval?: number | string }[];
  /** Entries per bridged notification (RN-13 split above), default 1000. */
  maxEntriesPerNotification?: number;
  /** Largest Change List (Index) or discovery document read, default 16 MiB. */
  maxDocumentBytes?: number;
}

export interface HubConfig {
  readonly host: string;
  readonly port: number;
  readonly publicUrl: string | undefined;
  readonly dbFile: string;
  readonly openPublishing: boolean;
  readonly allowPrivateNetworks: boolean;
  readonly leases: LeaseBounds;
  readonly retry: RetryPolicy;
  readonly logLevel: string;
  readonly requestTimeoutMs: number;
  readonly maxBodyBytes: number;
  readonly maxUnauthenticatedBodyBytes: number;
  readonly maxInFlight: number;
  readonly connectionsPerOrigin: number;
  readonly checkTopics: boolean;
  readonly replayWindowMs: number;
  readonly maxConnectionsPerClient: number;
  readonly secretKeyFile: string | undefined;
  readonly bridge: {
    readonly sources: readonly {
      readonly name: string;
      readonly poll: string;
      readonly intervalMs: number;
    }[];
    readonly maxEntriesPerNotification: number;
    readonly maxDocumentBytes: number;
  };
}

/** Browsers open 6 per host; generous for API clients, low enough that one address cannot hold the rest. */
export const DEFAULT_MAX_CONNECTIONS_PER_CLIENT = 128;

/** Default poll interval of a bridged Source. */
export const DEFAULT_BRIDGE_POLL_INTERVAL_MS = 30_000;

export { ConfigError };

const positiveInt = z.number().int().positive();

/** What a config file (JSON or YAML) and the CLI flags may set; same names as HubOptions. */
export const hubOptionsSchema = z
  .object({
    host: z.string().min(1).optional(),
    port: z.number().int().min(0).max(65535).optional(),
    publicUrl: z.url({ protocol: /^https?$/ }).optional(),
    dbFile: z.string().min(1),
    openPublishing: z.boolean().optional(),
    allowPrivateNetworks: z.boolean().optional(),
    leaseMinSeconds: positiveInt.optional(),
    leaseDefaultSeconds: positiveInt.optional(),
    leaseMaxSeconds: positiveInt.optional(),
    retry: z
      .object({
        initialDelayMs: positiveInt.optional(),
        maxDelayMs: positiveInt.optional(),
        maxAgeMs: positiveInt.optional(),
      })
      .strict()
      .optional(),
    logLevel: z.enum(LOG_LEVELS).optional(),
    requestTimeoutMs: positiveInt.optional(),
    maxBodyBytes: positiveInt.optional(),
    maxUnauthenticatedBodyBytes: positiveInt.optional(),
    maxInFlight: positiveInt.optional(),
    connectionsPerOrigin: positiveInt.optional(),
    checkTopics: z.boolean().optional(),
    replayWindowMs: z.number().int().nonnegative().optional(),
    maxConnectionsPerClient: z.number().int().nonnegative().optional(),
    secretKeyFile: z.string().min(1).optional(),
    bridge: z
      .object({
        sources: z
          .array(
            z
              .object({
                name: z
                  .string()
                  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'letters, digits, . _ - (max 64)'),
                poll: z.url({ protocol: /^https?$/ }),
                pollInterval: z.union([z.number().int().positive(), z.string()]).optional(),
              })
              .strict(),
          )
          .optional(),
        maxEntriesPerNotification: positiveInt.optional(),
        maxDocumentBytes: positiveInt.optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export function resolveHubConfig(options: HubOptions): HubConfig {
  const parsed = hubOptionsSchema.safeParse(options);
  if (!parsed.success)
    throw new ConfigError(`invalid hub options: ${z.prettifyError(parsed.error)}`);
  const o = parsed.data;
  try {
    // A path is SQLite, postgres:// is PostgreSQL; any other scheme is refused, never taken as a file name.
    parseDbLocation(o.dbFile);
  } catch (err) {
    throw new ConfigError((err as Error).message, {
      db: o.dbFile.replace(/\/\/[^@/]*@/, '//***@'),
    });
  }
  const leases: LeaseBounds = {
    minSeconds: o.leaseMinSeconds ?? DEFAULT_LEASE_BOUNDS.minSeconds,
    defaultSeconds: o.leaseDefaultSeconds ?? DEFAULT_LEASE_BOUNDS.defaultSeconds,
    maxSeconds: o.leaseMaxSeconds ?? DEFAULT_LEASE_BOUNDS.maxSeconds,
  };
  if (leases.minSeconds > leases.maxSeconds)
    throw new ConfigError('lease minimum is above the lease maximum', { ...leases });
  const retry: RetryPolicy = {
    initialDelayMs: o.retry?.initialDelayMs ?? DEFAULT_RETRY_POLICY.initialDelayMs,
    maxDelayMs: o.retry?.maxDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs,
    maxAgeMs: o.retry?.maxAgeMs ?? DEFAULT_RETRY_POLICY.maxAgeMs,
  };
  return {
    host: o.host ?? '127.0.0.1',
    port: o.port ?? 8080,
    publicUrl: o.publicUrl,
    dbFile: o.dbFile,
    openPublishing: o.openPublishing ?? false,
    allowPrivateNetworks: o.allowPrivateNetworks ?? false,
    leases: {
      ...leases,
      defaultSeconds: Math.min(
        leases.maxSeconds,
        Math.max(leases.minSeconds, leases.defaultSeconds),
      ),
    },
    retry: { ...retry, maxDelayMs: Math.max(retry.maxDelayMs, retry.initialDelayMs) },
    logLevel: o.logLevel ?? 'info',
    requestTimeoutMs: o.requestTimeoutMs ?? 10_000,
    maxBodyBytes: o.maxBodyBytes ?? 16 * 1024 * 1024,
    maxUnauthenticatedBodyBytes: o.maxUnauthenticatedBodyBytes ?? 32 * 1024 * 1024,
    maxInFlight: o.maxInFlight ?? 256,
    connectionsPerOrigin: o.connectionsPerOrigin ?? 64,
    checkTopics: o.checkTopics ?? true,
    replayWindowMs: o.replayWindowMs ?? 3_600_000,
    maxConnectionsPerClient: o.maxConnectionsPerClient ?? DEFAULT_MAX_CONNECTIONS_PER_CLIENT,
    secretKeyFile: o.secretKeyFile,
    bridge: {
      sources: (o.bridge?.sources ?? []).map((b) => {
        let intervalMs: number;
        try {
          intervalMs = parseDuration(b.pollInterval ?? DEFAULT_BRIDGE_POLL_INTERVAL_MS);
        } catch (err) {
          throw new ConfigError(`bridge source ${b.name}: ${(err as Error).message}`, {
            name: b.name,
          });
        }
        return { name: b.name, poll: b.poll, intervalMs };
      }),
      maxEntriesPerNotification: o.bridge?.maxEntriesPerNotification ?? 1000,
      maxDocumentBytes: o.bridge?.maxDocumentBytes ?? 16 * 1024 * 1024,
    },
  };
}

/** The endpoint URL once the real port is known. */
export function resolvePublicUrl(config: HubConfig, port: number): string {
  if (config.publicUrl) return config.publicUrl;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${port}/hub`;
}
