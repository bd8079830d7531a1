// hooks/: tell the outside world about each applied change, after it is on disk: run a command (the
// change travels in environment variables, never interpolated into a command line) or POST a small
// JSON document to a URL. Hooks run in the background with bounded concurrency; a failing hook is
// logged and never blocks or undoes mirroring.
import { execFile } from 'node:child_process';
import { request, type Dispatcher } from 'undici';
import type { Logger } from '../observability/index.js';
import { checkOutboundUrl, type OutboundPolicy } from '@rsnotify/shared';
import type { HookConfig } from '../config.js';

export interface AppliedChange {
  readonly source: string;
  readonly uri: string;
  readonly change: 'created' | 'updated' | 'deleted';
  readonly path?: string;
  /** Lexical change time, when the change had one. */
  readonly time?: string;
}

export interface HookRunner {
  notify(change: AppliedChange): void;
  /** Waits for queued hooks (bounded by `timeoutMs`). */
  drain(timeoutMs?: number): Promise<void>;
}

export function hookEnv(change: AppliedChange): Record<string, string> {
  return {
    RSNOTIFY_SOURCE: change.source,
    RSNOTIFY_URI: change.uri,
    RSNOTIFY_CHANGE: change.change,
    RSNOTIFY_PATH: change.path ?? '',
    RSNOTIFY_TIME: change.time ?? '',
  };
}

export function createHookRunner(
  hook: HookConfig,
  deps: {
    logger: Logger;
    dispatcher: Dispatcher;
    outbound: OutboundPolicy;
    concurrency?: number;
    timeoutMs?: number;
  },
): HookRunner {
  const queue: AppliedChange[] = [];
  let active = 0;
  const limit = deps.concurrency ?? 2;
  const timeout = deps.timeoutMs ?? 30_000;
  let idle: (() => void)[] = [];

  const runOne = async (change: AppliedChange): Promise<void> => {
    if ('command' in hook) {
      const [file, args] =
        typeof hook.command === 'string'
          ? ['/bin/sh', ['-c', hook.command]]
          : [hook.command[0]!, hook.command.slice(1)];
      await new Promise<void>((resolve) => {
        execFile(
          file,
          args,
          { env: { ...process.env, ...hookEnv(change) }, timeout, maxBuffer: 256 * 1024 },
          (err, _stdout, stderr) => {
            if (err)
              deps.logger.warn(
                {
                  event: 'hook.failed',
                  uri: change.uri,
                  kind: 'command',
                  error: err.message,
                  stderr: String(stderr).slice(0, 500),
                },
                'hook.failed',
              );
            resolve();
          },
        );
      });
      return;
    }
    try {
      checkOutboundUrl(hook.url, deps.outbound);
      const res = await request(hook.url, {
        method: 'POST',
        dispatcher: deps.dispatcher,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(change),
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
      await res.body.dump();
      if (res.statusCode >= 300)
        deps.logger.warn(
          { event: 'hook.failed', uri: change.uri, kind: 'url', status: res.statusCode },
          'hook.failed',
        );
    } catch (err) {
      deps.logger.warn(
        { event: 'hook.failed', uri: change.uri, kind: 'url', error: (err as Error).message },
        'hook.failed',
      );
    }
  };

  const pump = (): void => {
    while (active < limit && queue.length > 0) {
      const next = queue.shift()!;
      active++;
      void runOne(next).finally(() => {
        active--;
        if (active === 0 && queue.length === 0) {
          const waiters = idle;
          idle = [];
          for (const w of waiters) w();
        }
        pump();
      });
    }
  };

  return {
    notify(change) {
      queue.push(change);
      pump();
    },
    async drain(timeoutMs = 10_000) {
      if (active === 0 && queue.length === 0) return;
      await Promise.race([
        new Promise<void>((r) => idle.push(r)),
        new Promise<void>((r) => setTimeout(r, timeoutMs).unref()),
      ]);
    },
  };
}
