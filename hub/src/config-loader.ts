// `rsnotify-hub serve`'s options through the shared loader of @rsnotify/service-kit: flag
// `--NAME`, config-file key camelCase(NAME), environment `RSNOTIFY_HUB_*`; precedence flag >
// environment > file > default. The result is the programmatic HubOptions (config.ts) it maps to.
import {
  ConfigError,
  loadConfig,
  optionKey,
  type ConfigInput,
  type ConfigOption,
} from '@rsnotify/service-kit';
import { hubOptionsSchema, type HubOptions } from './config.js';

export interface HubConfigOption extends ConfigOption {
  /** The HubOptions field it sets (dotted for nested ones). */
  readonly to: string;
  /** On by default: the command line offers `--no-NAME`. */
  readonly cliNegated?: true;
}

/** Default database of `rsnotify-hub serve`. */
export const DEFAULT_DB = './data/hub.db';

/**
 * The options of `rsnotify-hub serve`: flag `--NAME`, config-file key camelCase(NAME), environment
 * `RSNOTIFY_HUB_*`. Each maps onto a HubOptions field (`to`); the former file keys (the HubOptions
 * names) are still read, with a deprecation warning.
 */
export const HUB_CONFIG_OPTIONS: readonly HubConfigOption[] = [
  {
    flag: 'host',
    placeholder: '<host>',
    to: 'host',
    kind: 'string',
    env: 'RSNOTIFY_HUB_HOST',
    help: 'address to listen on (default 127.0.0.1)',
  },
  {
    flag: 'port',
    placeholder: '<port>',
    to: 'port',
    kind: 'int',
    env: 'RSNOTIFY_HUB_PORT',
    help: 'port to listen on, 0 for an ephemeral one (default 8080)',
  },
  {
    flag: 'public-url',
    placeholder: '<url>',
    to: 'publicUrl',
    kind: 'string',
    env: 'RSNOTIFY_HUB_PUBLIC_URL',
    help: 'hub URL advertised to Sources and sent as rel=hub; the endpoint is served at its path (default http://HOST:PORT/hub)',
  },
  {
    flag: 'db',
    placeholder: '<file>',
    to: 'dbFile',
    kind: 'string',
    env: 'RSNOTIFY_HUB_DB',
    default: DEFAULT_DB,
    deprecatedKeys: ['dbFile'],
    help: `SQLite database file, or postgres://user:password@host:port/dbname for several hub processes on one PostgreSQL (default ${DEFAULT_DB})`,
  },
  {
    flag: 'open-publishing',
    to: 'openPublishing',
    kind: 'bool',
    env: 'RSNOTIFY_HUB_OPEN_PUBLISHING',
    help: 'accept publishing to any topic without a token (development only)',
  },
  {
    flag: 'allow-private-networks',
    to: 'allowPrivateNetworks',
    kind: 'bool',
    env: 'RSNOTIFY_HUB_ALLOW_PRIVATE_NETWORKS',
    help: 'allow loopback and private callback and topic addresses',
  },
  {
    flag: 'lease-min',
    placeholder: '<seconds>',
    to: 'leaseMinSeconds',
    kind: 'int',
    env: 'RSNOTIFY_HUB_LEASE_MIN',
    deprecatedKeys: ['leaseMinSeconds'],
    help: 'shortest lease granted (default 300)',
  },
  {
    flag: 'lease-default',
    placeholder: '<seconds>',
    to: 'leaseDefaultSeconds',
    kind: 'int',
    env: 'RSNOTIFY_HUB_LEASE_DEFAULT',
    deprecatedKeys: ['leaseDefaultSeconds'],
    help: 'lease when none is requested (default 864000)',
  },
  {
    flag: 'lease-max',
    placeholder: '<seconds>',
    to: 'leaseMaxSeconds',
    kind: 'int',
    env: 'RSNOTIFY_HUB_LEASE_MAX',
    deprecatedKeys: ['leaseMaxSeconds'],
    help: 'longest lease granted (default 2678400)',
  },
  {
    flag: 'retry-initial-ms',
    placeholder: '<duration>',
    to: 'retry.initialDelayMs',
    kind: 'duration',
    env: 'RSNOTIFY_HUB_RETRY_INITIAL_MS',
    deprecatedKeys: ['retry.initialDelayMs'],
    help: 'first delivery retry delay, ms or e.g. 1s (default 1s)',
  },
  {
    flag: 'retry-max-ms',
    placeholder: '<duration>',
    to: 'retry.maxDelayMs',
    kind: 'duration',
    env: 'RSNOTIFY_HUB_RETRY_MAX_MS',
    deprecatedKeys: ['retry.maxDelayMs'],
    help: 'longest delay between retries (default 5m)',
  },
  {
    flag: 'retry-max-age-ms',
    placeholder: '<duration>',
    to: 'retry.maxAgeMs',
    kind: 'duration',
    env: 'RSNOTIFY_HUB_RETRY_MAX_AGE_MS',
    deprecatedKeys: ['retry.maxAgeMs'],
    help: 'give a notification up after failing this long (default 24h)',
  },
  {
    flag: 'request-timeout-ms',
    placeholder: '<duration>',
    to: 'requestTimeoutMs',
    kind: 'duration',
    env: 'RSNOTIFY_HUB_REQUEST_TIMEOUT_MS',
    help: 'timeout of each outbound request (default 10s)',
  },
  {
    flag: 'max-body-bytes',
    placeholder: '<bytes>',
    to: 'maxBodyBytes',
    kind: 'int',
    env: 'RSNOTIFY_HUB_MAX_BODY_BYTES',
    help: 'largest accepted notification, 413 above (default 16777216)',
  },
  {
    flag: 'max-connections-per-client',
    placeholder: '<n>',
    to: 'maxConnectionsPerClient',
    kind: 'int',
    env: 'RSNOTIFY_HUB_MAX_CONNECTIONS_PER_CLIENT',
    help: 'open connections per client address, 503 and close above (0: unlimited; default 128)',
  },
  {
    flag: 'secret-key-file',
    placeholder: '<path>',
    to: 'secretKeyFile',
    kind: 'string',
    env: 'RSNOTIFY_HUB_SECRET_KEY_FILE',
    help: 'encrypt stored hub.secret values with this key (rsnotify-hub secret-key create)',
  },
  {
    flag: 'max-in-flight',
    placeholder: '<n>',
    to: 'maxInFlight',
    kind: 'int',
    env: 'RSNOTIFY_HUB_MAX_IN_FLIGHT',
    help: 'deliveries in flight at once (default 256)',
  },
  {
    flag: 'check-topics',
    cliNegated: true,
    to: 'checkTopics',
    kind: 'bool',
    env: 'RSNOTIFY_HUB_CHECK_TOPICS',
    help: 'HEAD topic URIs for RT-2 conformance after accepting (on; --no-check-topics turns it off)',
  },
  {
    flag: 'log-level',
    placeholder: '<level>',
    to: 'logLevel',
    kind: 'string',
    env: 'RSNOTIFY_HUB_LOG_LEVEL',
    help: 'fatal|error|warn|info|debug|trace|silent (default info)',
  },
];

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const [head, tail] = path.split('.') as [string, string | undefined];
  if (tail === undefined) {
    target[head] = value;
    return;
  }
  const inner = (target[head] ??= {}) as Record<string, unknown>;
  inner[tail] = value;
}

/**
 * `rsnotify-hub serve`'s options from flags > RSNOTIFY_HUB_* > config file > defaults. File keys
 * without a flag (`bridge`, `replayWindowMs`, `connectionsPerOrigin`,
 * `maxUnauthenticatedBodyBytes`) keep their HubOptions names. Throws ConfigError.
 */
export function loadHubOptions(input: ConfigInput): HubOptions {
  const loaded = loadConfig(HUB_CONFIG_OPTIONS, input);
  const merged: Record<string, unknown> = { ...loaded.rest };
  for (const option of HUB_CONFIG_OPTIONS) {
    const key = optionKey(option.flag);
    if (key in loaded.values) setPath(merged, option.to, loaded.values[key]);
  }
  const parsed = hubOptionsSchema.safeParse(merged);
  if (!parsed.success) {
    // Named by the key the operator wrote (`leaseMin`), not the HubOptions field it maps to.
    const keyOf = new Map(HUB_CONFIG_OPTIONS.map((o) => [o.to, optionKey(o.flag)]));
    const issues = parsed.error.issues.map((i) => {
      const path = i.path.map(String).join('.');
      return path ? `${keyOf.get(path) ?? path}: ${i.message}` : i.message;
    });
    throw new ConfigError(`invalid options: ${issues.join('; ')}`, {
      ...(input.file ? { file: input.file } : {}),
      issues,
    });
  }
  return parsed.data as HubOptions;
}
