// The subscriber's configuration: one validated shape (zod) read from YAML or JSON. Relative paths
// (dataDir, mirrorDir) resolve against the config file's folder, so a service unit and a developer's
// shell agree on where state lives.
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import {
  ConfigError,
  loadConfig,
  parseDuration as parseSharedDuration,
  type ConfigOption,
} from '@rsnotify/service-kit';

export { ConfigError };

/**
 * Start-up check that a directory the daemon writes can be created and written (a regular file in
 * its path, a read-only mount): one clear error naming the config key and the path, instead of a
 * warning per change later.
 */
export function assertWritableDirectory(key: string, dir: string): void {
  const probe = join(dir, `%%tmp-probe-${process.pid}`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(probe, '');
    unlinkSync(probe);
  } catch (err) {
    throw new ConfigError(
      `${key} ${dir} cannot be created or written: ${(err as Error).message}`,
      { key, path: dir },
      err,
    );
  }
}

/** `250`, `'250ms'`, `'5s'`, `'2m'`, `'1h'`, `'1d'` -> milliseconds (the shared syntax); ConfigError otherwise. */
export function parseDuration(value: number | string): number {
  try {
    return parseSharedDuration(value);
  } catch (err) {
    throw new ConfigError((err as Error).message, { value }, err);
  }
}

const duration = z.union([z.number().nonnegative(), z.string()]).transform((v, ctx) => {
  try {
    return parseDuration(v);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
    return z.NEVER;
  }
});

const httpUrl = z.string().refine((s) => {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}, 'must be an absolute http(s) URL');

const hookSchema = z.union([
  z.object({ command: z.union([z.string().min(1), z.array(z.string()).min(1)]) }).strict(),
  z.object({ url: httpUrl }).strict(),
]);

const sourceSchema = z
  .object({
    /** Used in file names, logs and CLI commands: keep it simple. */
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'letters, digits, . _ - (max 64)'),
    /** A Source Description, the well-known URI, a Capability List, or any page linking to one. */
    url: httpUrl,
    mirrorDir: z.string().min(1),
    leaseSeconds: z.number().int().positive().optional(),
    baseline: z.enum(['resourcelist', 'none']).default('resourcelist'),
    /** How long a gap may stay open before catch-up from the Change Lists (M-7). */
    gapTimeout: duration.default(5_000),
    fetchConcurrencyPerHost: z.number().int().positive().max(64).default(4),
    /**
     * Bytes of delivered notifications kept in memory while they wait to be applied; beyond it
     * they wait in the inbox alone and are read back from it in order (runner/inbox-feed.ts).
     */
    queuedDeliveryBytes: z
      .number()
      .int()
      .positive()
      .default(8 * 1024 * 1024),
    /** Polling period of the Change List when the Source advertises no channel. */
    pollInterval: duration.default(30_000),
    /**
     * Reconcile with the Resource List this often (audit + repair; finds changes a Source never
     * announced). Default 24h; 0 turns it off.
     */
    reconcileInterval: duration.default(24 * 3_600_000),
    hook: hookSchema.optional(),
    /**
     * A channel the Source does not advertise (a hub's poll-to-push bridge): subscribe to `topic` at
     * `hub` instead of what discovery finds. Discovery still finds the Source's lists (catch-up).
     */
    hub: httpUrl.optional(),
    topic: httpUrl.optional(),
  })
  .strict()
  .refine((s) => (s.hub === undefined) === (s.topic === undefined), {
    message: 'hub and topic go together',
    path: ['topic'],
  });

export const configSchema = z
  .object({
    listen: z
      .object({
        host: z.string().default('127.0.0.1'),
        port: z.number().int().min(0).max(65535).default(8091),
      })
      .strict()
      .default({ host: '127.0.0.1', port: 8091 }),
    /** Base of the callback URLs the hub calls; default http://{listen.host}:{port}. */
    publicUrl: httpUrl.optional(),
    dataDir: z.string().min(1),
    allowPrivateNetworks: z.boolean().default(false),
    logLevel: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info'),
    /** Largest delivery body accepted (413 above). */
    maxNotificationBytes: z
      .number()
      .int()
      .positive()
      .default(10 * 1024 * 1024),
    /** Subscription retry policy (hub down, 5xx, no verification). */
    retry: z
      .object({ initialDelay: duration.default(1_000), maxDelay: duration.default(300_000) })
      .strict()
      .default({ initialDelay: 1_000, maxDelay: 300_000 }),
    /** A pending subscription with no verification after this long is retried with a new callback. */
    verificationTimeout: duration.default(120_000),
    sources: z.array(sourceSchema).default([]),
    /** When set, /status and /status.json want `Authorization: Bearer <statusToken>`. */
    statusToken: z.string().min(16, 'at least 16 characters').optional(),
    /** Serve /status and /status.json on this address instead of the listen address. */
    statusListen: z
      .object({ host: z.string().default('127.0.0.1'), port: z.number().int().min(0).max(65535) })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((cfg, ctx) => {
    const seen = new Set<string>();
    cfg.sources.forEach((s, i) => {
      if (seen.has(s.name))
        ctx.addIssue({
          code: 'custom',
          path: ['sources', i, 'name'],
          message: `duplicate source name ${s.name}`,
        });
      seen.add(s.name);
    });
  });

/** What callers write (durations as '5s' or ms, defaults omitted). */
export type SubscriberConfig = z.input<typeof configSchema>;
/** After validation and defaults: durations in ms. */
export type ResolvedConfig = z.output<typeof configSchema>;
export type SourceConfig = ResolvedConfig['sources'][number];
export type HookConfig = NonNullable<SourceConfig['hook']>;

/** Validates a config object; relative paths resolve against `baseDir` (default: cwd). */
export function resolveConfig(input: unknown, baseDir: string = process.cwd()): ResolvedConfig {
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new ConfigError(`invalid subscriber config: ${issues.join('; ')}`, { issues });
  }
  const cfg = parsed.data;
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(baseDir, p));
  return {
    ...cfg,
    dataDir: abs(cfg.dataDir),
    sources: cfg.sources.map((s) => ({ ...s, mirrorDir: abs(s.mirrorDir) })),
  };
}

/**
 * The top-level options that also come from the command line (`run --NAME`) and the environment
 * (`RSNOTIFY_SUBSCRIBER_*`); the file key is the flag name in camelCase. Nested sections (`listen`,
 * `retry`, `sources`, `statusListen`) live in the file only. Defaults are the schema's.
 */
export const SUBSCRIBER_CONFIG_OPTIONS: readonly ConfigOption[] = [
  {
    flag: 'data-dir',
    placeholder: '<dir>',
    kind: 'string',
    env: 'RSNOTIFY_SUBSCRIBER_DATA_DIR',
    help: 'state directory (subscriber.db)',
  },
  {
    flag: 'public-url',
    placeholder: '<url>',
    kind: 'string',
    env: 'RSNOTIFY_SUBSCRIBER_PUBLIC_URL',
    help: 'base of the callback URLs given to hubs',
  },
  {
    flag: 'allow-private-networks',
    kind: 'bool',
    env: 'RSNOTIFY_SUBSCRIBER_ALLOW_PRIVATE_NETWORKS',
    help: 'allow loopback/private addresses (SSRF guard off)',
  },
  {
    flag: 'log-level',
    placeholder: '<level>',
    kind: 'string',
    env: 'RSNOTIFY_SUBSCRIBER_LOG_LEVEL',
    help: 'fatal|error|warn|info|debug|trace|silent (default info)',
  },
  {
    flag: 'max-notification-bytes',
    placeholder: '<bytes>',
    kind: 'int',
    env: 'RSNOTIFY_SUBSCRIBER_MAX_NOTIFICATION_BYTES',
    help: 'larger deliveries get 413 (default 10 MiB)',
  },
  {
    flag: 'verification-timeout',
    placeholder: '<duration>',
    kind: 'duration',
    env: 'RSNOTIFY_SUBSCRIBER_VERIFICATION_TIMEOUT',
    help: 'retry a subscription the hub does not verify in this time (default 2m)',
  },
  {
    flag: 'status-token',
    placeholder: '<token>',
    kind: 'string',
    env: 'RSNOTIFY_SUBSCRIBER_STATUS_TOKEN',
    help: 'bearer token for /status (prefer the environment variable)',
  },
];

export interface SubscriberConfigSources {
  /** Values of the `run` flags really given, keyed by file key (camelCase). */
  readonly flags?: Readonly<Record<string, unknown>>;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly warn?: (line: string) => void;
}

/**
 * Reads a YAML or JSON file (JSON is YAML, so one parser serves both) and applies flag >
 * environment > file > default through the shared loader. Relative paths from the file resolve
 * against its folder; a data directory from a flag or the environment against the working directory.
 */
export async function loadConfigFile(
  file: string,
  sources: SubscriberConfigSources = { env: process.env },
): Promise<ResolvedConfig> {
  const loaded = loadConfig(SUBSCRIBER_CONFIG_OPTIONS, { ...sources, file });
  const merged: Record<string, unknown> = { ...loaded.rest, ...loaded.values };
  if (typeof merged.dataDir === 'string' && loaded.origins.dataDir !== 'file')
    merged.dataDir = resolve(merged.dataDir);
  return resolveConfig(merged, dirname(resolve(file)));
}

/** The base URL callbacks are built on, given the port actually bound. */
export function callbackBase(cfg: ResolvedConfig, boundPort: number): string {
  if (cfg.publicUrl) return cfg.publicUrl.replace(/\/+$/, '');
  const host = cfg.listen.host.includes(':') ? `[${cfg.listen.host}]` : cfg.listen.host;
  return `http://${host}:${boundPort}`;
}
