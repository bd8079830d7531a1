// `rsnotify-hub serve`: runs the hub until SIGTERM/SIGINT, then closes it gracefully. Its options are
// the one table HUB_CONFIG_OPTIONS (config-loader.ts): each is a flag, an RSNOTIFY_HUB_* variable and
// a config-file key, resolved by the shared loader (flag > environment > file > default).
import { Option, type Command } from 'commander';
import { describeError } from '@rsnotify/shared';
import { ConfigError, givenFlags } from '@rsnotify/service-kit';
import { startHub } from '../hub.js';
import { HUB_CONFIG_OPTIONS, loadHubOptions } from '../config-loader.js';

/**
 * A configuration the hub cannot run with: one line and exit 2. A bad flag value is a usage error,
 * so the command's help follows it; a bad file or environment value is not the command line's fault.
 */
function configFailure(err: ConfigError, cmd: Command): never {
  const help = err.details.from === 'flag' ? `\n${cmd.helpInformation()}` : '';
  process.stderr.write(`rsnotify-hub: ${err.code}: ${err.message.replace(/\n+/g, ' ')}\n${help}`);
  process.exit(2);
}

async function serve(opts: Record<string, unknown>, cmd: Command): Promise<void> {
  let hub: Awaited<ReturnType<typeof startHub>>;
  try {
    const options = loadHubOptions({
      flags: givenFlags(HUB_CONFIG_OPTIONS, opts, (key) => cmd.getOptionValueSource(key)),
      env: process.env,
      ...(typeof opts.config === 'string' ? { file: opts.config } : {}),
    });
    hub = await startHub(options);
  } catch (err) {
    if (err instanceof ConfigError) configFailure(err, cmd);
    throw err;
  }
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
    .option('--config <file>', 'YAML or JSON config file (keys: the flag names in camelCase)');
  for (const o of HUB_CONFIG_OPTIONS) {
    const flag = `--${o.cliNegated ? 'no-' : ''}${o.flag}${o.placeholder ? ` ${o.placeholder}` : ''}`;
    serveCmd.addOption(new Option(flag, `${o.help ?? ''} [env ${o.env ?? '-'}]`));
  }
  serveCmd.action(serve);
}
