// The serve command's options: every flag is also an RSNOTIFY_HUB_* environment variable and a key of
// the --config file; precedence: flag > environment > config file > default.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { RsnotifyError, describeError } from '@rsnotify/shared';
import type { HubCodesOf } from '../errors/index.js';
import { hubOptionsSchema, type HubOptions } from '../config.js';

export const DEFAULT_DB = './data/hub.db';

type Kind = 'string' | 'int' | 'bool';
export interface FlagSpec {
  readonly flag: string;
  readonly key: string;
  readonly env: string;
  readonly kind: Kind;
  readonly help: string;
}

export const SERVE_FLAGS: readonly FlagSpec[] = [
  {
    flag: '--host <host>',
    key: 'host',
    env: 'HOST',
    kind: 'string',
    help: 'address to listen on (default 127.0.0.1)',
  },
  {
    flag: '--port <port>',
    key: 'port',
    env: 'PORT',
    kind: 'int',
    help: 'port to listen on, 0 for an ephemeral one (default 8080)',
  },
  {
    flag: '--public-url <url>',
    key: 'publicUrl',
    env: 'PUBLIC_URL',
    kind: 'string',
    help: 'hub URL advertised to Sources and sent as rel=hub; the endpoint is served at its path (default http://HOST:PORT/hub)',
  },
  {
    flag: '--db <file>',
    key: 'dbFile',
    env: 'DB',
    kind: 'string',
    help: `SQLite database file, or postgres://user:password@host:port/dbname for several hub processes on one PostgreSQL (default ${DEFAULT_DB})`,
  },
  {
    flag: '--open-publishing',
    key: 'openPublishing',
    env: 'OPEN_PUBLISHING',
    kind: 'bool',
    help: 'accept publishing to any topic without a token (development only)',
  },
  {
    flag: '--allow-private-networks',
    key: 'allowPrivateNetworks',
    env: 'ALLOW_PRIVATE_NETWORKS',
    kind: 'bool',
    help: 'allow loopback and private callback and topic addresses',
  },
  {
    flag: '--lease-min <seconds>',
    key: 'leaseMinSeconds',
    env: 'LEASE_MIN',
    kind: 'int',
    help: 'shortest lease granted (default 300)',
  },
  {
    flag: '--lease-default <seconds>',
    key: 'leaseDefaultSeconds',
    env: 'LEASE_DEFAULT',
    kind: 'int',
    help: 'lease when none is requested (default 864000)',
  },
  {
    flag: '--lease-max <seconds>',
    key: 'leaseMaxSeconds',
    env: 'LEASE_MAX',
    kind: 'int',
    help: 'longest lease granted (default 2678400)',
  },
  {
    flag: '--retry-initial-ms <ms>',
    key: 'retry.initialDelayMs',
    env: 'RETRY_INITIAL_MS',
    kind: 'int',
    help: 'first delivery retry delay (default 1000)',
  },
  {
    flag: '--retry-max-ms <ms>',
    key: 'retry.maxDelayMs',
    env: 'RETRY_MAX_MS',
    kind: 'int',
    help: 'longest delay between retries (default 300000)',
  },
  {
    flag: '--retry-max-age-ms <ms>',
    key: 'retry.maxAgeMs',
    env: 'RETRY_MAX_AGE_MS',
    kind: 'int',
    help: 'give a notification up after failing this long (default 86400000)',
  },
  {
    flag: '--request-timeout-ms <ms>',
    key: 'requestTimeoutMs',
    env: 'REQUEST_TIMEOUT_MS',
    kind: 'int',
    help: 'timeout of each outbound request (default 10000)',
  },
  {
    flag: '--max-body-bytes <bytes>',
    key: 'maxBodyBytes',
    env: 'MAX_BODY_BYTES',
    kind: 'int',
    help: 'largest accepted notification, 413 above (default 16777216)',
  },
  {
    flag: '--max-in-flight <n>',
    key: 'maxInFlight',
    env: 'MAX_IN_FLIGHT',
    kind: 'int',
    help: 'deliveries in flight at once (default 256)',
  },
  {
    flag: '--no-check-topics',
    key: 'checkTopics',
    env: 'CHECK_TOPICS',
    kind: 'bool',
    help: 'do not HEAD topic URIs for RT-2 conformance after accepting',
  },
  {
    flag: '--log-level <level>',
    key: 'logLevel',
    env: 'LOG_LEVEL',
    kind: 'string',
    help: 'fatal|error|warn|info|debug|trace|silent (default info)',
  },
];

/** A command line the CLI cannot run: exit 2 with the command's help. */
export class UsageError extends RsnotifyError<HubCodesOf<'UsageError'>> {
  constructor(message: string) {
    super('RSN_HUB_USAGE', message);
    this.name = 'UsageError';
  }
}

function convert(spec: FlagSpec, raw: unknown, where: string): unknown {
  if (raw === undefined) return undefined;
  if (spec.kind === 'bool') {
    if (typeof raw === 'boolean') return raw;
    const s = String(raw as string).toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(s)) return true;
    if (['0', 'false', 'no', 'off', ''].includes(s)) return false;
    throw new UsageError(`${where}: ${spec.key} must be true or false`);
  }
  if (spec.kind === 'int') {
    const s = String(raw as string | number);
    if (!/^\d+$/.test(s))
      throw new UsageError(
        `${where}: ${spec.key} must be a non-negative integer, not ${JSON.stringify(s)}`,
      );
    return Number(s);
  }
  return String(raw as string);
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const [head, tail] = path.split('.') as [string, string | undefined];
  if (tail === undefined) {
    target[head] = value;
    return;
  }
  const inner = (target[head] ??= {}) as Record<string, unknown>;
  inner[tail] = value;
}

export function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read config file ${file}: ${describeError(err).message}`);
  }
  const data = parseYaml(text) as unknown; // YAML is a superset of JSON
  const parsed = hubOptionsSchema.partial().safeParse(data ?? {});
  if (!parsed.success)
    throw new UsageError(`config file ${file} is invalid:\n${z.prettifyError(parsed.error)}`);
  return parsed.data as Record<string, unknown>;
}

/** Flag > RSNOTIFY_HUB_* > config file > default. */
export function serveOptions(
  cli: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  sources: (key: string) => string | undefined,
): HubOptions {
  const merged: Record<string, unknown> = cli.config
    ? readConfigFile(String(cli.config as string))
    : {};
  for (const spec of SERVE_FLAGS) {
    const attr = spec.flag
      .replace(/^--(no-)?/, '')
      .split(' ')[0]!
      .replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
    const fromCli = sources(attr) === 'cli' ? convert(spec, cli[attr], `--${attr}`) : undefined;
    const fromEnv = convert(spec, env[`RSNOTIFY_HUB_${spec.env}`], `RSNOTIFY_HUB_${spec.env}`);
    const value = fromCli ?? fromEnv;
    if (value !== undefined) setPath(merged, spec.key, value);
  }
  merged.dbFile ??= DEFAULT_DB;
  const parsed = hubOptionsSchema.safeParse(merged);
  if (!parsed.success) throw new UsageError(`invalid options:\n${z.prettifyError(parsed.error)}`);
  return parsed.data as HubOptions;
}
