#!/usr/bin/env node
// rsnotify-hub: `serve` runs the hub; `source add|list|remove` and `subscriptions` administer its
// database directly; `admin` manages the operator console's tokens. The commands live in cli/ and
// admin/; this file builds the program and runs it when executed.
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { describeError } from '@rsnotify/shared';
import { AdminCliError, registerAdminCommands } from './admin/index.js';
import { registerSecretKeyCommands } from './secrets/index.js';
import {
  UsageError,
  registerServeCommand,
  registerSourceCommands,
  registerSubscriptionsCommand,
} from './cli/index.js';
import { DEFAULT_DB } from './config-loader.js';

export { UsageError } from './cli/index.js';

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

  registerServeCommand(program);
  registerSourceCommands(program);
  registerSubscriptionsCommand(program);
  registerAdminCommands(program, DEFAULT_DB);
  registerSecretKeyCommands(program);
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
