#!/usr/bin/env node
// rsnotify-hub: `serve` runs the hub; `source add|list|remove` and `subscriptions` administer its
// database directly (they work while the hub runs: SQLite WAL allows a second connection).
// Every serve flag is also an RSNOTIFY_HUB_* environment variable and a key of the --config file;
// precedence: flag > environment > config file > default.
import { redactUrl } from '@rsnotify/service-kit';
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import { RsnotifyError, describeError, normaliseTopicUrl } from '@rsnotify/shared';
import type { HubCodesOf } from './errors/index.js';
import { startHub } from './hub.js';
import type { HubOptions } from './config.js';
import { DEFAULT_DB, HUB_CONFIG_OPTIONS, loadHubOptions } from './config-loader.js';
import {
  openRepository,
  openSqliteStores,
  parseDbLocation,
  type BridgeRepository,
  type HubRepository,
} from './store/index.js';
import { bridgedTopicUrl, checkBridgeName } from './bridge/index.js';
import { ConfigError, optionKey, parseDuration, readConfigFile } from '@rsnotify/service-kit';
import { DEFAULT_BRIDGE_POLL_INTERVAL_MS } from './config.js';
import { TenantDirectory } from './tenants/index.js';
import { AdminCliError, registerAdminCommands } from './admin/index.js';

/** A command line the CLI cannot run: exit 2 with the command's help. */
export class UsageError extends RsnotifyError<HubCodesOf<'UsageError'>> {
  constructor(message: string) {
    super('RSN_HUB_USAGE', message);
    this.name = 'UsageError';
  }
}

/** A config file's `publicUrl` (or the deprecated spelling), for the bridge commands. */
function configFilePublicUrl(file: string): string | undefined {
  const value = readConfigFile(file).publicUrl;
  return typeof value === 'string' ? value : undefined;
}

/** Flag > RSNOTIFY_HUB_* > config file > default (the shared loader; options in config.ts). */
export function serveOptions(
  cli: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  sources: (key: string) => string | undefined,
): HubOptions {
  const flags: Record<string, unknown> = {};
  for (const option of HUB_CONFIG_OPTIONS) {
    const key = optionKey(option.flag);
    if (sources(key) === 'cli') flags[key] = cli[key];
  }
  try {
    return loadHubOptions({
      flags,
      env,
      ...(cli.config ? { file: String(cli.config as string) } : {}),
    });
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
}

function printJson(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

async function serve(opts: Record<string, unknown>, cmd: Command): Promise<void> {
  let options: HubOptions;
  try {
    options = serveOptions(opts, process.env, (k) => cmd.getOptionValueSource(k));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`rsnotify-hub: ${err.message}\n\n${cmd.helpInformation()}`);
    process.exit(2);
  }
  const hub = await startHub(options);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    void hub.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(
          `rsnotify-hub: error while stopping on ${signal}: ${describeError(err).message}\n`,
        );
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function openDirectory(db: string | undefined): Promise<{
  store: HubRepository;
  bridge: BridgeRepository | undefined;
  tenants: TenantDirectory;
}> {
  // A file path is SQLite, postgres://... is PostgreSQL (no LISTEN needed for one command).
  const location = db ?? process.env.RSNOTIFY_HUB_DB ?? DEFAULT_DB;
  const where = parseDbLocation(location);
  if (where.engine === 'sqlite') {
    // The bridge's tables sit beside the SQLite engine's.
    const { repository: store, bridge } = openSqliteStores(where.file);
    return { store, bridge, tenants: new TenantDirectory(store) };
  }
  const store = await openRepository(location, { listen: false, poolSize: 2 });
  return { store, bridge: undefined, tenants: new TenantDirectory(store) };
}

function bridgeOf(bridge: BridgeRepository | undefined): BridgeRepository {
  if (!bridge)
    throw new UsageError(
      'bridged Sources (--poll) need the SQLite store in this version, not PostgreSQL',
    );
  return bridge;
}

/** The hub endpoint URL bridged topics hang off: flag, environment, config file, serve's default. */
function publicUrlFor(o: { publicUrl?: string; config?: string }): string {
  if (o.publicUrl) return o.publicUrl;
  if (process.env.RSNOTIFY_HUB_PUBLIC_URL) return process.env.RSNOTIFY_HUB_PUBLIC_URL;
  const fromFile = o.config ? configFilePublicUrl(o.config) : undefined;
  return fromFile ?? 'http://127.0.0.1:8080/hub';
}

function pollIntervalMs(text: string | undefined): number {
  if (text === undefined) return DEFAULT_BRIDGE_POLL_INTERVAL_MS;
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (err) {
    throw new UsageError(`--poll-interval: ${(err as Error).message}`);
  }
  if (ms < 100) throw new UsageError('--poll-interval must be at least 100ms');
  return ms;
}

/** The package's version, read from its package.json (next to src/ and dist/ alike). */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

export function buildProgram(): Command {
  const program = new Command('rsnotify-hub')
    .description('Multi-tenant WebSub hub for ResourceSync Change Notification')
    .version(packageVersion())
    // Usage errors print the command's help and exit 2 (commander's own default is 1); the settings
    // are inherited by the subcommands defined below.
    .showHelpAfterError()
    .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));

  const serveCmd = program
    .command('serve')
    .description('run the hub')
    .option('--config <file>', 'JSON or YAML config file (keys: the flag names in camelCase)');
  for (const o of HUB_CONFIG_OPTIONS) {
    const flag = o.cliNegated
      ? `--no-${o.flag}`
      : `--${o.flag}${o.placeholder ? ` ${o.placeholder}` : ''}`;
    serveCmd.addOption(new Option(flag, `${o.help ?? ''} [env ${o.env ?? '-'}]`));
  }
  serveCmd.action(serve);

  const source = program
    .command('source')
    .description('manage Sources (publishers) and their tokens');
  source
    .command('add <name>')
    .description(
      'register a Source; prints its publish token ONCE (only a hash is stored). With --poll: a Source that only publishes Change Lists, polled by the hub and published on {publicUrl}/bridge/NAME',
    )
    .option('--topic-prefix <url...>', 'topic URL prefixes the Source owns (a publishing Source)')
    .option(
      '--allow-callback <prefix...>',
      'only callbacks starting with one of these may subscribe (others are denied, WH-14)',
    )
    .option('--poll <url>', "bridge: the Source's base URL, Source Description or Capability List")
    .option(
      '--poll-interval <duration>',
      'bridge: how often the Change List is polled (default 30s)',
    )
    .option(
      '--public-url <url>',
      'bridge: the hub endpoint URL, to print the bridged topic (default as serve)',
    )
    .option('--config <file>', 'bridge: the serve config file (for publicUrl)')
    .option('--db <file>', `SQLite database file or postgres:// URL (default ${DEFAULT_DB})`)
    .action(
      async (
        name: string,
        o: {
          topicPrefix?: string[];
          allowCallback?: string[];
          poll?: string;
          pollInterval?: string;
          publicUrl?: string;
          config?: string;
          db?: string;
        },
      ) => {
        if (o.poll !== undefined) {
          if (o.topicPrefix)
            throw new UsageError(
              '--poll and --topic-prefix exclude each other: a bridged Source does not publish',
            );
          try {
            checkBridgeName(name);
          } catch (err) {
            throw new UsageError((err as Error).message);
          }
          const intervalMs = pollIntervalMs(o.pollInterval);
          if (
            parseDbLocation(o.db ?? process.env.RSNOTIFY_HUB_DB ?? DEFAULT_DB).engine !== 'sqlite'
          )
            bridgeOf(undefined);
          const { store, bridge } = await openDirectory(o.db);
          try {
            const r = await bridgeOf(bridge).addBridgedSource({
              name,
              pollUrl: new URL(o.poll).href,
              intervalMs,
              now: Date.now(),
            });
            const topic = bridgedTopicUrl(publicUrlFor(o), r.name);
            printJson({
              event: 'source.bridged',
              name: r.name,
              poll: r.pollUrl,
              pollIntervalMs: r.intervalMs,
              topic,
            });
            process.stderr.write(
              `Source ${r.name} bridged: the hub polls ${r.pollUrl} every ${r.intervalMs} ms and publishes on ${topic}\n`,
            );
          } finally {
            await store.close();
          }
          return;
        }
        if (!o.topicPrefix)
          throw new UsageError(
            'source add needs --topic-prefix (a publishing Source) or --poll (a bridged Source)',
          );
        const { store, tenants } = await openDirectory(o.db);
        try {
          const { token, source: s } = await tenants.addSource(
            name,
            o.topicPrefix!,
            o.allowCallback ?? [],
          );
          printJson({
            event: 'source.added',
            name: s.name,
            topicPrefixes: s.topicPrefixes,
            allowCallbacks: s.callbackPrefixes,
            token,
          });
          process.stderr.write(
            `Source ${s.name} registered. Its publish token (shown only now; send it as "Authorization: Bearer <token>"):\n${token}\n`,
          );
        } finally {
          await store.close();
        }
      },
    );
  source
    .command('list')
    .description('list registered Sources, and bridged ones with their topic')
    .option('--db <file>', 'SQLite database file or postgres:// URL')
    .option('--json', 'one JSON line per Source')
    .option('--public-url <url>', 'the hub endpoint URL bridged topics hang off (default as serve)')
    .option('--config <file>', 'the serve config file (for publicUrl)')
    .action(async (o: { db?: string; json?: boolean; publicUrl?: string; config?: string }) => {
      const { store, bridge, tenants } = await openDirectory(o.db);
      try {
        for (const s of await tenants.sources()) {
          if (o.json)
            printJson({
              name: s.name,
              topicPrefixes: s.topicPrefixes,
              allowCallbacks: s.callbackPrefixes,
              createdAt: new Date(s.createdAt).toISOString(),
            });
          else
            process.stdout.write(
              `${s.name}\t${s.topicPrefixes.join(' ')}${s.callbackPrefixes.length ? `\tcallbacks: ${s.callbackPrefixes.join(' ')}` : ''}\n`,
            );
        }
        const bridged = bridge ? await bridge.listBridgedSources() : [];
        const hubUrl = bridged.length > 0 ? publicUrlFor(o) : '';
        for (const b of bridged) {
          const topic = bridgedTopicUrl(hubUrl, b.name);
          if (o.json) {
            printJson({
              name: b.name,
              bridged: true,
              poll: b.pollUrl,
              pollIntervalMs: b.intervalMs,
              topic,
              changeList: b.position.changeListUrl,
              coveredTo: b.position.coveredTo,
              lastPollAt:
                b.lastPollAt === undefined ? undefined : new Date(b.lastPollAt).toISOString(),
              lastError: b.lastError,
            });
          } else {
            process.stdout.write(
              `${b.name}\tbridged: polls ${b.pollUrl} every ${b.intervalMs / 1000}s\ttopic ${topic}${b.lastError ? `\tlast error: ${b.lastError}` : ''}\n`,
            );
          }
        }
      } finally {
        await store.close();
      }
    });
  source
    .command('remove <name>')
    .description('remove a Source (its token stops working) or a bridged Source (polling stops)')
    .option('--db <file>', 'SQLite database file or postgres:// URL')
    .action(async (name: string, o: { db?: string }) => {
      const { store, bridge, tenants } = await openDirectory(o.db);
      try {
        const removed =
          (await tenants.removeSource(name)) ||
          (bridge !== undefined && (await bridge.removeBridgedSource(name)));
        printJson({ event: removed ? 'source.removed' : 'source.not_found', name });
        if (!removed) process.exitCode = 1;
      } finally {
        await store.close();
      }
    });

  program
    .command('subscriptions')
    .description('list subscriptions (one JSON line each)')
    .option('--topic <url>', 'only this topic')
    .option('--db <file>', 'SQLite database file or postgres:// URL')
    .option(
      '--show-callbacks',
      'print callback URLs in full (their paths are often capabilities); default: origin and a hash of the path',
    )
    .action(async (o: { topic?: string; db?: string; showCallbacks?: boolean }) => {
      const { store } = await openDirectory(o.db);
      try {
        const now = Date.now();
        for (const s of await store.listSubscriptions(
          o.topic ? { topicUrl: normaliseTopicUrl(o.topic) } : {},
        )) {
          printJson({
            topic: s.topicAsGiven,
            callback: o.showCallbacks ? s.callback : redactUrl(s.callback),
            state: s.leaseExpiresAt > now ? 'active' : 'expired',
            leaseExpiresAt: new Date(s.leaseExpiresAt).toISOString(),
            signed: s.secret !== undefined,
            deliveredSeq: s.deliveredSeq,
            attempts: s.attempts,
            lastStatus: s.lastStatus,
            lastError: s.lastError,
          });
        }
      } finally {
        await store.close();
      }
    });
  registerAdminCommands(program, DEFAULT_DB);
  return program;
}

function isMainModule(): boolean {
  // Compared through realpath so a bin symlink (`rsnotify-hub` -> dist/cli.js) counts as running it.
  if (process.argv[1] === undefined) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}
const isMain = isMainModule();
if (isMain) {
  buildProgram()
    .parseAsync(process.argv)
    .catch((err: unknown) => {
      process.stderr.write(
        `rsnotify-hub: ${err instanceof UsageError || err instanceof AdminCliError ? err.message : describeError(err).message}\n`,
      );
      process.exit(2);
    });
}
