// The test kit both daemons' tests and the cross-package tests share (`@rsnotify/service-kit/testing`):
// outcome-based waiting, temporary directories under the OS temp dir, free loopback ports, and our
// CLIs as child processes (processes.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WaitTimeoutError } from '../errors.js';

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** Included in the timeout error, e.g. 'mirror converged'. */
  what?: string;
  /**
   * Called once on timeout: the state the probe kept refusing (e.g. the status it read), put into
   * the timeout error as JSON so that a failure in CI says what was there instead.
   */
  describe?: () => unknown;
}

/** What `describe` says of the state at the timeout; its own failure is said instead. */
async function describeState(describe: WaitOptions['describe']): Promise<string> {
  if (!describe) return '';
  try {
    return `; state: ${JSON.stringify(await describe())}`;
  } catch (err) {
    return `; state unknown (describe failed: ${err instanceof Error ? err.message : String(err)})`;
  }
}

/**
 * Polls `probe` until it returns a truthy value (which is returned), or throws after the deadline.
 * A probe that throws counts as "not yet"; its last error is in the timeout message.
 */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  options: WaitOptions = {},
): Promise<NonNullable<T>> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      const state = await describeState(options.describe);
      throw new WaitTimeoutError(
        `timed out after ${timeoutMs} ms waiting for ${options.what ?? 'condition'}${why}${state}`,
        lastError,
      );
    }
    await sleep(options.intervalMs ?? 50);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** A fresh directory under the OS temp dir, and how to remove it. */
export async function tempDir(
  prefix = 'rsnotify-',
): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * An ephemeral port that was free a moment ago. Only for a process that must come back on the SAME
 * port after a restart; everything else listens on port 0.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  return await new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}
/**
 * A logger destination that keeps the JSON lines written to it, parsed, in `events` (one event a
 * line), for a test to wait for and inspect what a daemon logged: `createLogger('info', log.sink)`.
 */
export function logLines(): {
  readonly sink: { write(chunk: string): void };
  readonly events: Record<string, unknown>[];
  /** The lines of one event, in order. */
  readonly of: (event: string) => Record<string, unknown>[];
} {
  const events: Record<string, unknown>[] = [];
  return {
    sink: {
      write(chunk) {
        for (const line of chunk.split('\n'))
          if (line.trim()) events.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
    events,
    of: (event) => events.filter((e) => e.event === event),
  };
}

export { readmeLogEvents } from './readme.js';
export { spawnCli, type ManagedProcess, type SpawnCliOptions } from './processes.js';
export {
  changeNotificationXml,
  fixtureDocument,
  resourceSyncXml,
  type FixtureDocument,
  type FixtureEntry,
  type FixtureLink,
  type FixtureMetadata,
} from './resourcesync.js';
