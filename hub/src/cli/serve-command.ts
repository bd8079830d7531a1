// `rsnotify-hub serve`: runs the hub until SIGTERM/SIGINT, then closes it gracefully.
import { Option, type Command } from 'commander';
import { describeError } from '@rsnotify/shared';
import { startHub } from '../hub.js';
import type { HubOptions } from '../config.js';
import { SERVE_FLAGS, UsageError, serveOptions } from './serve-options.js';

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

export function registerServeCommand(program: Command): void {
  const serveCmd = program
    .command('serve')
    .description('run the hub')
    .option('--config <file>', 'JSON or YAML config file (keys as in HubOptions)');
  for (const spec of SERVE_FLAGS)
    serveCmd.addOption(new Option(spec.flag, `${spec.help} [env RSNOTIFY_HUB_${spec.env}]`));
  serveCmd.action(serve);
}
