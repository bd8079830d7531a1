// cli/: the rsnotify-hub commands (serve, source, subscriptions); ../cli.ts builds the program.
export { DEFAULT_DB, UsageError, serveOptions } from './serve-options.js';
export { registerServeCommand } from './serve-command.js';
export { registerSourceCommands, registerSubscriptionsCommand } from './source-commands.js';
