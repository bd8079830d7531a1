// A subscriber workspace under the run's temporary directory (the runner removes it after the run).
import { join } from 'node:path';
import type { Workspace } from '../../e2e/subscriber-helpers.js';
import type { BenchContext } from '../types.js';

export function benchWorkspace(ctx: BenchContext, name: string): Workspace {
  const dir = join(ctx.tmpDir, name);
  return {
    dir,
    dataDir: join(dir, 'data'),
    mirrorDir: join(dir, 'mirror'),
    remove: async () => undefined,
  };
}
