// `rsnotify-hub source add|list|remove` and `subscriptions`: administer the hub's database directly
// (they work while the hub runs: SQLite WAL allows a second connection).
import type { Command } from 'commander';
import { parseDuration, redactUrl } from '@rsnotify/service-kit';
import { normaliseTopicUrl } from '@rsnotify/shared';
import {
  openRepository,
  openSqliteStores,
  parseDbLocation,
  type BridgeRepository,
  type HubRepository,
  type PostgresRepository,
} from '../store/index.js';
import { bridgedTopicUrl, checkBridgeName } from '../bridge/index.js';
import { DEFAULT_BRIDGE_POLL_INTERVAL_MS } from '../config.js';
import { TenantDirectory } from '../tenants/index.js';
import { hasLeaseLapsed } from '../subscriptions/index.js';
import { DEFAULT_DB, loadHubOptions } from '../config-loader.js';
import { UsageError } from './usage-error.js';

function printJson(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

async function openDirectory(db: string | undefined): Promise<{
  store: HubRepository;
  bridge: BridgeRepository;
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
  const store = (await openRepository(location, {
    listen: false,
    poolSize: 2,
  })) as PostgresRepository;
  return { store, bridge: store.bridge, tenants: new TenantDirectory(store) };
}

/** The hub endpoint URL bridged topics hang off: flag, environment, config file, serve's default. */
function publicUrlFor(o: { publicUrl?: string; config?: string }): string {
  const options = loadHubOptions({
    flags: o.publicUrl ? { publicUrl: o.publicUrl } : {},
    env: process.env,
    ...(o.config ? { file: o.config } : {}),
  });
  return options.publicUrl ?? 'http://127.0.0.1:8080/hub';
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

export function registerSourceCommands(program: Command): void {
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
          const { store, bridge } = await openDirectory(o.db);
          try {
            const r = await bridge.addBridgedSource({
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
        const bridged = await bridge.listBridgedSources();
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
          (await tenants.removeSource(name)) || (await bridge.removeBridgedSource(name));
        printJson({ event: removed ? 'source.removed' : 'source.not_found', name });
        if (!removed) process.exitCode = 1;
      } finally {
        await store.close();
      }
    });
}

export function registerSubscriptionsCommand(program: Command): void {
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
            state: hasLeaseLapsed(s.leaseExpiresAt, now) ? 'expired' : 'active',
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
}
