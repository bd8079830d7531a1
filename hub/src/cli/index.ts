// cli/: the rsnotify-hub commands (serve, source, subscriptions); ../cli.ts builds the program.
export { UsageError } from './usage-error.js';
export { registerServeCommand } from './serve-command.js';
export { registerSourceCommands, registerSubscriptionsCommand } from './source-commands.js';
