import { fileURLToPath } from 'node:url';
import * as kit from '@rsnotify/service-kit/testing';

export type { ManagedProcess } from '@rsnotify/service-kit/testing';

/** The repository root (test/src/harness -> ../../..). */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Runs one of our TypeScript CLIs from source (`hub/src/cli.ts`, `subscriber/src/cli.ts`, a path
 * from the repository root) as a child process (service-kit's spawnCli).
 */
export function spawnCli(
  script: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; echo?: boolean } = {},
): kit.ManagedProcess {
  return kit.spawnCli(script, args, { cwd: repoRoot, ...options });
}
