import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

/** The repository root (test/src/harness -> ../../..). */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

export interface ManagedProcess {
  readonly child: ChildProcess;
  /** Every stdout line so far (JSON log lines of our CLIs), most recent last. */
  readonly lines: string[];
  /** Resolves with the first parsed JSON line whose `event` equals `event`. */
  waitForEvent(event: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** SIGKILL: a crash, nothing flushed. */
  kill9(): Promise<void>;
  /** SIGTERM and wait for exit; returns the exit code. */
  stop(timeoutMs?: number): Promise<number | null>;
  readonly exited: Promise<number | null>;
}

/**
 * Runs one of our TypeScript CLIs from source (`hub/src/cli.ts`, `subscriber/src/cli.ts`) as a child
 * process with the workspace's source condition.
 */
export function spawnCli(
  script: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; echo?: boolean } = {},
): ManagedProcess {
  const child = spawn(
    process.execPath,
    ['--conditions=@rsnotify/source', '--import', 'tsx', script, ...args],
    {
      cwd: repoRoot,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const lines: string[] = [];
  const waiters: { event: string; resolve: (v: Record<string, unknown>) => void }[] = [];
  const onLine = (line: string) => {
    lines.push(line);
    if (lines.length > 5000) lines.splice(0, 1000);
    if (options.echo) process.stderr.write(`[${script}] ${line}\n`);
    if (!line.startsWith('{')) return;
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    for (let i = waiters.length - 1; i >= 0; i--) {
      const w = waiters[i]!;
      if (parsed.event === w.event || parsed.msg === w.event) {
        waiters.splice(i, 1);
        w.resolve(parsed);
      }
    }
  };
  createInterface({ input: child.stdout! }).on('line', onLine);
  createInterface({ input: child.stderr! }).on('line', onLine);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    exited,
    waitForEvent(event, timeoutMs = 30_000) {
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        try {
          const parsed = JSON.parse(line) as Record<string, unknown>;
          if (parsed.event === event || parsed.msg === event) return Promise.resolve(parsed);
        } catch {
          /* not JSON */
        }
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `${script}: no '${event}' within ${timeoutMs} ms; last lines:\n${lines.slice(-15).join('\n')}`,
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
            new Error(
              `${script} exited (${code}) before '${event}'; last lines:\n${lines.slice(-15).join('\n')}`,
            ),
          );
        });
      });
    },
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop(timeoutMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
