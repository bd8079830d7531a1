// One of our TypeScript CLIs as a real child process, from source (the workspace's source
// condition, through tsx), so that a test can crash it for real (SIGKILL) and read its JSON log
// lines as they come. The hub's tests and the cross-package tests both start their CLIs this way.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { WaitTimeoutError } from '../errors.js';

export interface ManagedProcess {
  readonly child: ChildProcess;
  /** Every stdout and stderr line so far (JSON log lines of our CLIs), most recent last. */
  readonly lines: string[];
  /** Resolves with the first JSON line whose `event` (or `msg`) equals `event`, seen or to come. */
  waitForEvent(event: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** SIGKILL: a crash, nothing flushed. */
  kill9(): Promise<void>;
  /** SIGTERM, SIGKILL after `timeoutMs`, and the exit code. */
  stop(timeoutMs?: number): Promise<number | null>;
  readonly exited: Promise<number | null>;
}

export interface SpawnCliOptions {
  /** The child's working directory. */
  readonly cwd: string;
  /** Added to this process's environment. */
  readonly env?: NodeJS.ProcessEnv;
  /** Copies each line to this process's stderr, prefixed with the script (for debugging a test). */
  readonly echo?: boolean;
}

/** Lines kept: a long-running daemon's log is trimmed by its oldest thousand past this. */
const MAX_LINES = 5000;

const eventOf = (line: string): Record<string, unknown> | undefined => {
  if (!line.startsWith('{')) return undefined;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
};

const isEvent = (parsed: Record<string, unknown>, event: string): boolean =>
  parsed.event === event || parsed.msg === event;

export function spawnCli(
  script: string,
  args: readonly string[],
  options: SpawnCliOptions,
): ManagedProcess {
  const child = spawn(
    process.execPath,
    ['--conditions=@rsnotify/source', '--import', 'tsx', script, ...args],
    {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const lines: string[] = [];
  const waiters: { event: string; resolve: (v: Record<string, unknown>) => void }[] = [];
  const onLine = (line: string): void => {
    lines.push(line);
    if (lines.length > MAX_LINES) lines.splice(0, 1000);
    if (options.echo) process.stderr.write(`[${script}] ${line}\n`);
    const parsed = eventOf(line);
    if (!parsed) return;
    for (let i = waiters.length - 1; i >= 0; i--)
      if (isEvent(parsed, waiters[i]!.event)) waiters.splice(i, 1)[0]!.resolve(parsed);
  };
  createInterface({ input: child.stdout! }).on('line', onLine);
  createInterface({ input: child.stderr! }).on('line', onLine);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const lastLines = (): string => lines.slice(-15).join('\n');
  return {
    child,
    lines,
    exited,
    waitForEvent(event, timeoutMs = 30_000) {
      for (const line of lines) {
        const parsed = eventOf(line);
        if (parsed && isEvent(parsed, event)) return Promise.resolve(parsed);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new WaitTimeoutError(
                `${script}: no '${event}' within ${timeoutMs} ms; last lines:\n${lastLines()}`,
              ),
            ),
          timeoutMs,
        );
        waiters.push({
          event,
          resolve: (v) => {
            clearTimeout(timer);
            resolve(v);
          },
        });
        void exited.then((code) => {
          clearTimeout(timer);
          reject(
            new WaitTimeoutError(
              `${script} exited (${code}) before '${event}'; last lines:\n${lastLines()}`,
            ),
          );
        });
      });
    },
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop(timeoutMs = 20_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
