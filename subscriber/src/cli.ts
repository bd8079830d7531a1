#!/usr/bin/env node
// rsnotify-subscriber: run the daemon, or inspect and operate it (status, discover, sync, audit,
// unsubscribe). Logs are JSON lines on stdout; human output of the one-shot commands goes to stdout
// too, errors to stderr. Exit codes: 0 ok, 1 failure (audit: not in sync), 2 usage/config error,
// 3 audit only: the Source was still changing (differences moved between two looks; run again).
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { describeError } from '@rsnotify/shared';
import { givenFlags } from '@rsnotify/service-kit';
import { SUBSCRIBER_CONFIG_OPTIONS, loadConfigFile, type ResolvedConfig } from './config.js';
import { describeAudit } from './audit/index.js';
import { discoverSource, lookupBridgedChannel, pageFetcherFrom } from './discovery/index.js';
import { createHttpGetter } from './mirror/index.js';
import { createLogger } from './observability/index.js';
import {
  auditSource,
  readStatus,
  repairSource,
  startSubscriber,
  syncSource,
  unsubscribeSource,
} from './service.js';
import type { CatchUpOutcome } from './runner/index.js';

/** `sync`: exit 0 only when the Change Lists proved coverage and every change was applied. */
function describeSync(o: CatchUpOutcome): { ok: boolean; text: string } {
  switch (o.result) {
    case 'done':
      return {
        ok: true,
        text: `in sync: coverage proven to ${o.coveredTo}, ${o.changes ?? 0} change(s) applied`,
      };
    case 'history-gone':
      return o.rebaselined
        ? {
            ok: true,
            text: `history gone (${o.historyGone ?? 'unknown'}): re-baselined from the Resource List`,
          }
        : {
            ok: false,
            text: `history gone (${o.historyGone ?? 'unknown'}) and the re-baseline failed`,
          };
    case 'up-to-date':
      return { ok: true, text: 'in sync: the Change Lists list nothing after the position' };
    case 'unproven':
      return {
        ok: false,
        text: 'coverage NOT proven: no Change List proves where it starts (no from, no timed entry)',
      };
    case 'failed':
      return {
        ok: false,
        text: o.error
          ? `catch-up failed: ${o.error}`
          : `NOT applied: ${o.failed ?? 0} change(s) failed`,
      };
    default:
      return { ok: false, text: `no catch-up: ${o.error ?? 'nothing to catch up from'}` };
  }
}
import { formatStatus } from './status/index.js';

const DEFAULT_CONFIG = process.env.RSNOTIFY_SUBSCRIBER_CONFIG ?? '/etc/rsnotify/subscriber.yaml';

async function config(file: string | undefined): Promise<ResolvedConfig> {
  return loadConfigFile(file ?? DEFAULT_CONFIG);
}

function fail(err: unknown, code = 1): never {
  const e = describeError(err);
  process.stderr.write(`rsnotify-subscriber: ${e.code ? `${e.code}: ` : ''}${e.message}\n`);
  process.exit(e.code === 'RSN_CONFIG_INVALID' ? 2 : code);
}

/** The package's version, read from its package.json (next to src/ and dist/ alike). */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

const program = new Command();
program
  .name('rsnotify-subscriber')
  .description('Mirror ResourceSync Sources from their change notifications (WebSub)')
  .version(packageVersion())
  // Usage errors print the command's help and exit 2 (commander's own default is 1); the settings
  // are inherited by the subcommands defined below.
  .showHelpAfterError()
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));

const runCmd = program
  .command('run')
  .description('run the daemon: discover, subscribe, receive, order, catch up, mirror')
  .option('-c, --config <file>', 'YAML or JSON config', DEFAULT_CONFIG)
  .action(async (opts: Record<string, unknown> & { config: string }, cmd: Command) => {
    const cfg = await loadConfigFile(opts.config, {
      flags: givenFlags(SUBSCRIBER_CONFIG_OPTIONS, opts, (key) => cmd.getOptionValueSource(key)),
      env: process.env,
    }).catch((err) => fail(err));
    const logger = createLogger(cfg.logLevel);
    let sub: Awaited<ReturnType<typeof startSubscriber>>;
    try {
      sub = await startSubscriber(cfg, { logger });
    } catch (err) {
      logger.fatal(
        { event: 'subscriber.start_failed', ...describeError(err) },
        'subscriber.start_failed',
      );
      logger.flush();
      process.exit(1);
    }
    let stopping = false;
    const stop = (signal: string): void => {
      if (stopping) return;
      stopping = true;
      logger.info({ event: 'subscriber.stopping', signal }, 'subscriber.stopping');
      // SIGTERM: stop taking deliveries, finish (or persist) the step in flight, close the store.
      sub.close().then(
        () => {
          logger.flush();
          process.exit(0);
        },
        (err) => {
          logger.error(
            { event: 'subscriber.stop_failed', ...describeError(err) },
            'subscriber.stop_failed',
          );
          logger.flush();
          process.exit(1);
        },
      );
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
  });

// Flag > RSNOTIFY_SUBSCRIBER_* > config file > default, as in the hub (config.ts).
for (const o of SUBSCRIBER_CONFIG_OPTIONS)
  runCmd.option(
    `--${o.flag}${o.placeholder ? ` ${o.placeholder}` : ''}`,
    `${o.help ?? ''} [env ${o.env ?? '-'}]`,
  );

program
  .command('status')
  .description(
    'per source: hub, topic, lease expiry, syncedUntil, lag, buffered notifications, errors',
  )
  .option('-c, --config <file>', 'YAML or JSON config', DEFAULT_CONFIG)
  .option('--json', 'print JSON')
  .action(async (opts: { config: string; json?: boolean }) => {
    try {
      const statuses = await readStatus(await config(opts.config));
      process.stdout.write(
        opts.json ? `${JSON.stringify(statuses, null, 2)}\n` : formatStatus(statuses),
      );
    } catch (err) {
      fail(err);
    }
  });

program
  .command('discover')
  .description('find the Capability List and change-notification channel of a Source, and say how')
  .argument('<url>', 'any URL of the Source')
  .option('--allow-private-networks', 'allow loopback and private addresses')
  .option(
    '--hub <url>',
    "ask this hub for a bridged channel (it polls the Source's Change Lists for us)",
  )
  .option('--json', 'print JSON')
  .action(
    async (url: string, opts: { allowPrivateNetworks?: boolean; json?: boolean; hub?: string }) => {
      const http = createHttpGetter({ allowPrivateNetworks: opts.allowPrivateNetworks ?? false });
      try {
        let d = await discoverSource(url, pageFetcherFrom(http));
        if (opts.hub) {
          const bridged = await lookupBridgedChannel(http, opts.hub, [
            url,
            d.sourceDescriptionUrl,
            d.capabilityListUrl,
            d.changeListUrl,
          ]);
          const steps = [
            ...d.steps,
            {
              url: opts.hub,
              note: bridged
                ? `bridged channel ${bridged.name}: topic ${bridged.topic} (the hub polls ${bridged.matched})`
                : 'the hub bridges no URL of this Source',
            },
          ];
          d = bridged
            ? {
                ...d,
                steps,
                mode: 'push',
                channel: {
                  advertisedTopic: bridged.topic,
                  advertisedHubs: [bridged.hub],
                  topic: bridged.topic,
                  hub: bridged.hub,
                  hubs: [bridged.hub],
                  via: 'hub-bridge',
                },
              }
            : { ...d, steps };
          if (bridged && !opts.json)
            process.stdout.write(
              `config for this source:  hub: ${bridged.hub}\n                         topic: ${bridged.topic}\n`,
            );
        }
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(d, null, 2)}\n`);
        } else {
          const lines = d.steps.map((s) => `  ${s.url}\n    ${s.note}`);
          lines.push(
            '',
            `route:            ${d.route}`,
            `capability list:  ${d.capabilityListUrl}`,
          );
          if (d.sourceDescriptionUrl) lines.push(`source desc.:     ${d.sourceDescriptionUrl}`);
          lines.push(
            `resource list:    ${d.resourceListUrl ?? '(none)'}`,
            `change list:      ${d.changeListUrl ?? '(none)'}`,
            `mode:             ${d.mode}`,
          );
          if (d.channel)
            lines.push(
              `topic (hub.topic): ${d.channel.topic}`,
              `hub:              ${d.channel.hub}  (from ${d.channel.via})`,
            );
          process.stdout.write(`${lines.join('\n')}\n`);
        }
      } catch (err) {
        const e = err as { details?: { steps?: { url: string; note: string }[] } };
        for (const s of e.details?.steps ?? []) process.stderr.write(`  ${s.url}\n    ${s.note}\n`);
        fail(err);
      } finally {
        await http.close();
      }
    },
  );

program
  .command('sync')
  .description('one catch-up (or the baseline, without a position yet) without the hub')
  .argument('<name>', 'source name')
  .option('-c, --config <file>', 'YAML or JSON config', DEFAULT_CONFIG)
  .action(async (name: string, opts: { config: string }) => {
    try {
      const cfg = await config(opts.config);
      const r = await syncSource(cfg, name, { logger: createLogger(cfg.logLevel) });
      const verdict = describeSync(r.outcome);
      // The last line says whether coverage was proven and everything applied (exit 0) or why not.
      process.stdout.write(`${name}: ${verdict.text}; syncedUntil ${r.syncedUntil ?? '(none)'}\n`);
      process.exitCode = verdict.ok ? 0 : 1;
    } catch (err) {
      fail(err);
    }
  });

program
  .command('audit')
  .description("compare the mirror with the Source's Resource List; exit 0 only when in sync")
  .argument('<name>', 'source name')
  .option('-c, --config <file>', 'YAML or JSON config', DEFAULT_CONFIG)
  .option('--json', 'print JSON')
  .option(
    '--repair',
    'fetch what is missing or different and remove extras, through the verified writer',
  )
  .action(async (name: string, opts: { config: string; json?: boolean; repair?: boolean }) => {
    try {
      const cfg = await config(opts.config);
      if (opts.repair) {
        const r = await repairSource(cfg, name, { logger: createLogger('warn') });
        const { results: _results, ...summary } = r;
        process.stdout.write(
          opts.json
            ? `${JSON.stringify(summary, null, 2)}\n`
            : `${describeAudit(r.report)}\n` +
                `repaired: ${r.fetched} fetched, ${r.removed} removed, ${r.failed} failed, ${r.changedMeanwhile} changed at the Source meanwhile\n`,
        );
        process.exitCode = r.failed === 0 ? 0 : 1;
        return;
      }
      const report = await auditSource(cfg, name, { logger: createLogger('warn') });
      const text = report.stillChanging
        ? `Source still changing: ${describeAudit(report)}`
        : describeAudit(report);
      process.stdout.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : `${text}\n`);
      process.exitCode = report.inSync ? 0 : report.stillChanging ? 3 : 1;
    } catch (err) {
      fail(err);
    }
  });

program
  .command('unsubscribe')
  .description(
    'unsubscribe a source at its hub (WS-19); the daemon does not subscribe again until restarted',
  )
  .argument('<name>', 'source name')
  .option('-c, --config <file>', 'YAML or JSON config', DEFAULT_CONFIG)
  .action(async (name: string, opts: { config: string }) => {
    try {
      const cfg = await config(opts.config);
      const r = await unsubscribeSource(cfg, name, { logger: createLogger(cfg.logLevel) });
      process.stdout.write(
        `${name}: ${r.requested} subscription(s) unsubscribed at the hub, ${r.confirmed} confirmed\n`,
      );
      process.exitCode = r.confirmed === r.requested ? 0 : 1;
    } catch (err) {
      fail(err);
    }
  });

await program.parseAsync(process.argv);
