// `rsnotify-hub secret-key create PATH`: a new key file for encrypting stored hub.secret values.
import type { Command } from 'commander';
import { describeError } from '@rsnotify/shared';
import { createSecretKeyFile } from './key-file.js';

export function registerSecretKeyCommands(program: Command): void {
  const key = program
    .command('secret-key')
    .description('the key that encrypts stored hub.secret values (serve --secret-key-file)');
  key
    .command('create <path>')
    .description('create a new key file (mode 0600; an existing file is never overwritten)')
    .action((path: string) => {
      try {
        const id = createSecretKeyFile(path);
        process.stdout.write(
          `${JSON.stringify({ event: 'secret_key.created', path, keyId: id })}\n`,
        );
      } catch (err) {
        process.stderr.write(`rsnotify-hub: ${describeError(err).message}\n`);
        process.exitCode = 1;
      }
    });
}
