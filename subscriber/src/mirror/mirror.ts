// Applies changes to the mirror directory: one queue per URI so changes to a resource land in order,
// many URIs in parallel under a per-host limit, retries decided by the pure policy, idempotent
// through the resource state the CONTROL side keeps (RA-2: one change may arrive on several channels
// or again in a catch-up).
import { dirname } from 'node:path';
import { setImmediate as nextTurnOfLoop } from 'node:timers/promises';
import { describeError, type Change, type ChangeType, type DateTime } from '@rsnotify/shared';
import { MirrorError } from './errors.js';
import { headerValue, readAhead, type HttpGetter } from './http.js';
import { uriToMirrorPath } from './path.js';
import { decideRetry, isTransientNetworkError, type FetchOutcome } from './retry-policy.js';
import { HostLimiter } from './host-limiter.js';
import { SyncGroup, type SyncFileSystem } from './sync-group.js';
import {
  DirectoryCache,
  discardTemporary,
  openTemporary,
  removeFile,
  writeVerified,
  type Expected,
  type Temporary,
  type WriteOptions,
} from './writer.js';

/**
 * Changes started per turn of the event loop. A change whose apply needs no I/O (the delete of a
 * file the mirror never had) runs to its end in microtasks, so a notification of 73,000 such
 * changes started at once held the loop for 2.7 s, deliveries and status included.
 */
const CHANGES_PER_TURN = 256;

/** Implemented by the CONTROL side over the `resources` table. */
export interface ResourceStateStore {
  get(
    uri: string,
  ): Promise<{ lastChangeKey?: string; sha256?: string; length?: number } | undefined>;
  /** null = deleted. */
  set(
    uri: string,
    state: { lastChangeKey?: string; sha256?: string; length?: number; path: string } | null,
  ): Promise<void>;
}

export interface ApplyResult {
  readonly uri: string;
  readonly change: ChangeType;
  /**
   * 'skipped': already applied (its time is not after the stored one), or superseded by a later
   * change to the same URI queued behind it (the later one fetches the current state anyway).
   */
  readonly outcome: 'written' | 'deleted' | 'skipped' | 'failed';
  readonly error?: { readonly code: string; readonly message: string; readonly status?: number };
  /** Why a change was skipped: a replay of an applied change, or superseded by a later one. */
  readonly skipped?: 'replay' | 'superseded';
  /** The change time, when the change had one. */
  readonly time?: DateTime;
  /** The mirror file (when the URI maps to one). */
  readonly path?: string;
}

export interface MirrorOptions {
  readonly mirrorDir: string;
  readonly http: HttpGetter;
  readonly state: ResourceStateStore;
  /** Concurrent fetches per host (default 8; match the HttpGetter's connections). */
  readonly perHostConcurrency?: number;
  /** Attempts per change before it is reported failed (default 4). */
  readonly maxAttempts?: number;
  /** First retry delay (default 200 ms; doubles per attempt, capped at 10 s). */
  readonly retryBaseDelayMs?: number;
  readonly retryMaxDelayMs?: number;
  /** Whole-fetch deadline per attempt (default 60 s). */
  readonly fetchTimeoutMs?: number;
  readonly clock?: () => number;
  readonly onApplied?: (result: ApplyResult) => void;
  /** The fsync the batched writes go through (tests inject a failing disk). */
  readonly fileSystem?: SyncFileSystem;
  /** Files per fsync batch of batched writes (default 128). */
  readonly syncBatchFiles?: number;
}

export interface ApplyOptions {
  /** No replay check (repair: the file differs whatever the recorded change says). */
  readonly force?: boolean;
  /**
   * Files are fsync'd in batches with other batched writes, and each change's state is recorded only
   * once its batch is durable (sync-group.ts); the baseline's bulk fetch. Default: one fsync each.
   */
  readonly batched?: boolean;
}

export interface Mirror {
  /** Applies changes in order per URI; resolves with one result per change, in input order. */
  apply(changes: readonly Change[], options?: ApplyOptions): Promise<ApplyResult[]>;
  /** Waits for the work in flight; queued retries stop waiting and report RSN_MIRROR_CLOSED. */
  close(): Promise<void>;
}

interface Job {
  readonly change: Change;
  readonly force: boolean;
  readonly batched: boolean;
  resolve(result: ApplyResult): void;
}

interface UriQueue {
  readonly jobs: Job[];
}

/** Bodies up to this size are read whole before the file is written (most resources are small). */
const IN_MEMORY_BYTES = 64 * 1024;

/** What the written file must be: the announced bytes, and its mtime (lastmod, else change time). */
function expectationOf(change: Change): Expected {
  const stamp = change.lastmod ?? change.time;
  return {
    uri: change.uri,
    ...(change.hash ? { hash: change.hash } : {}),
    ...(change.length !== undefined ? { length: change.length } : {}),
    ...(stamp ? { mtimeMs: stamp.epochMs } : {}),
  };
}

/** A later change makes an earlier one pointless when it will certainly be applied after it. */
function supersedes(later: Change, earlier: Change): boolean {
  if (later.time === undefined) return true; // applied unconditionally
  return earlier.time !== undefined && later.time.key >= earlier.time.key;
}

export function createMirror(options: MirrorOptions): Mirror {
  const { mirrorDir, http, state } = options;
  const clock = options.clock ?? Date.now;
  const maxAttempts = options.maxAttempts ?? 4;
  const fetchTimeoutMs = options.fetchTimeoutMs ?? 60_000;
  const limiter = new HostLimiter(options.perHostConcurrency ?? 8);
  const dirs = new DirectoryCache(mirrorDir);
  const syncGroup = new SyncGroup({
    root: mirrorDir,
    ...(options.fileSystem ? { fs: options.fileSystem } : {}),
    ...(options.syncBatchFiles ? { maxFiles: options.syncBatchFiles } : {}),
  });
  const queues = new Map<string, UriQueue>();
  const running = new Set<Promise<void>>();
  const sleeps = new Set<() => void>();
  let closed = false;

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        sleeps.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      sleeps.add(done);
    });
  }

  function result(
    change: Change,
    outcome: ApplyResult['outcome'],
    extra: Partial<ApplyResult> = {},
  ): ApplyResult {
    const r: ApplyResult = {
      uri: change.uri,
      change: change.change,
      outcome,
      ...(change.time ? { time: change.time } : {}),
      ...extra,
    };
    return r;
  }

  function failure(change: Change, err: unknown, path?: string): ApplyResult {
    const { code, message } = describeError(err);
    const status =
      err instanceof MirrorError && typeof err.details.status === 'number'
        ? err.details.status
        : undefined;
    return result(change, 'failed', {
      error: {
        code: code ?? 'RSN_FETCH_FAILED',
        message,
        ...(status === undefined ? {} : { status }),
      },
      ...(path ? { path } : {}),
    });
  }

  async function fetchInto(
    change: Change,
    path: string,
    host: string,
    isSuperseded: () => boolean,
    commit?: WriteOptions['commit'],
  ): Promise<{ sha256: string; length: number; path: string }> {
    for (let attempt = 1; ; attempt++) {
      if (closed)
        throw new MirrorError(
          'RSN_MIRROR_CLOSED',
          `mirror closed before ${change.uri} was fetched`,
          { details: { uri: change.uri } },
        );
      let outcome: FetchOutcome;
      let lastError: unknown;
      await limiter.acquire(host);
      let holding = true;
      const release = (): void => {
        if (holding) {
          holding = false;
          limiter.release(host);
        }
      };
      // The temporary file is created while the GET is in flight: open(2) of a new file took 0.3-0.5
      // ms on the publish-to-file path once the body had arrived. Only in a directory known to
      // exist, so that a failed GET creates no directories.
      let temporary: Temporary | undefined = dirs.has(dirname(path))
        ? openTemporary(path)
        : undefined;
      try {
        const res = await http.stream(change.uri, { timeoutMs: fetchTimeoutMs });
        if (res.status !== 200) {
          await res.dump();
          const retryAfter = headerValue(res.headers, 'retry-after');
          outcome = { kind: 'status', status: res.status, ...(retryAfter ? { retryAfter } : {}) };
          lastError = new MirrorError('RSN_HTTP_STATUS', `GET ${change.uri}: HTTP ${res.status}`, {
            details: { uri: change.uri, status: res.status },
          });
        } else {
          try {
            const body = await readAhead(res.body, IN_MEMORY_BYTES);
            // A small body is already in memory: the connection is free again, and the disk work
            // (open, write, fsync, rename) must not hold the host's fetch slot.
            if (body.complete) release();
            const handedOver = temporary;
            temporary = undefined; // writeVerified owns it now
            return await writeVerified(path, body.chunks, expectationOf(change), dirs, {
              bodyRead: release,
              ...(commit ? { commit } : {}),
              ...(handedOver ? { temporary: handedOver } : {}),
            });
          } finally {
            await res.dump();
          }
        }
      } catch (err) {
        lastError = err;
        const code = describeError(err).code;
        if (
          err instanceof MirrorError &&
          (err.code === 'RSN_HASH_MISMATCH' || err.code === 'RSN_LENGTH_MISMATCH')
        ) {
          outcome = { kind: 'integrity', code: err.code };
        } else if (err instanceof MirrorError || !isTransientNetworkError(code)) {
          outcome = { kind: 'fatal', code: code ?? 'RSN_FETCH_FAILED' };
        } else {
          outcome = { kind: 'network', ...(code ? { code } : {}) };
        }
      } finally {
        release();
        if (temporary) await discardTemporary(temporary);
      }
      const decision = decideRetry(outcome, attempt, clock(), {
        maxAttempts,
        ...(options.retryBaseDelayMs === undefined
          ? {}
          : { baseDelayMs: options.retryBaseDelayMs }),
        ...(options.retryMaxDelayMs === undefined ? {} : { maxDelayMs: options.retryMaxDelayMs }),
      });
      if (decision.action === 'retry' && !isSuperseded()) {
        await sleep(decision.delayMs);
        continue;
      }
      if (lastError instanceof MirrorError) throw lastError;
      throw new MirrorError(
        decision.action === 'fail' ? (decision.code as 'RSN_FETCH_FAILED') : 'RSN_FETCH_FAILED',
        `GET ${change.uri} failed after ${attempt} attempt(s): ${describeError(lastError).message}`,
        { cause: lastError, details: { uri: change.uri, attempts: attempt } },
      );
    }
  }

  async function applyOne(job: Job, isSuperseded: () => boolean): Promise<ApplyResult> {
    const { change, force } = job;
    let path: string | undefined;
    try {
      path = uriToMirrorPath(mirrorDir, change.uri);
      const key = change.time?.key;
      /** Whether the resource state has a row for the URI; undefined: not looked up. */
      let recorded: boolean | undefined;
      if (key !== undefined && !force) {
        const stored = await state.get(change.uri);
        // Idempotency: a change no later than the one applied last is a replay.
        if (stored?.lastChangeKey !== undefined && key <= stored.lastChangeKey)
          return result(change, 'skipped', { path, skipped: 'replay' });
        recorded = stored !== undefined;
      }
      if (change.change === 'deleted') {
        await removeFile(path, change.uri, recorded === true);
        // No row to remove when the lookup found none: this URI's queue is the only writer of its
        // row, and the write would cost a transaction of its own.
        if (recorded !== false) await state.set(change.uri, null);
        return result(change, 'deleted', { path });
      }
      const host = new URL(change.uri).host;
      const to = path;
      const written = job.batched
        ? await syncGroup.track((commit) => fetchInto(change, to, host, isSuperseded, commit))
        : await fetchInto(change, path, host, isSuperseded);
      // Recorded only now, after the file is durable (for a batched write: its whole batch).
      await state.set(change.uri, {
        ...(key === undefined ? {} : { lastChangeKey: key }),
        sha256: written.sha256,
        length: written.length,
        path,
      });
      return result(change, 'written', { path: written.path });
    } catch (err) {
      return failure(change, err, path);
    }
  }

  async function drainQueue(uri: string, queue: UriQueue): Promise<void> {
    while (queue.jobs.length > 0) {
      const job = queue.jobs.shift()!;
      const isSuperseded = (): boolean =>
        queue.jobs.length > 0 && supersedes(queue.jobs[0]!.change, job.change);
      let r = isSuperseded()
        ? result(job.change, 'skipped', { skipped: 'superseded' })
        : await applyOne(job, isSuperseded);
      // A change that failed because the resource moved on (hash mismatch, 404 after a later delete)
      // is stale, not broken, when a later change to the URI is already waiting: that one fetches
      // the current state, so the failure is not reported.
      if (r.outcome === 'failed' && isSuperseded())
        r = result(job.change, 'skipped', {
          skipped: 'superseded',
          ...(r.path ? { path: r.path } : {}),
        });
      options.onApplied?.(r);
      job.resolve(r);
    }
    queues.delete(uri);
  }

  function enqueue(change: Change, force: boolean, batched: boolean): Promise<ApplyResult> {
    return new Promise<ApplyResult>((resolve) => {
      const job: Job = { change, force, batched, resolve };
      if (closed) {
        resolve(failure(change, new MirrorError('RSN_MIRROR_CLOSED', 'mirror closed')));
        return;
      }
      let queue = queues.get(change.uri);
      if (queue) {
        queue.jobs.push(job);
        return;
      }
      queue = { jobs: [job] };
      queues.set(change.uri, queue);
      const p = drainQueue(change.uri, queue).finally(() => running.delete(p));
      running.add(p);
    });
  }

  return {
    async apply(changes, applyOptions) {
      const force = applyOptions?.force === true;
      const batched = applyOptions?.batched === true;
      const results: Promise<ApplyResult>[] = [];
      for (let at = 0; at < changes.length; at += CHANGES_PER_TURN) {
        if (at > 0) await nextTurnOfLoop();
        const end = Math.min(changes.length, at + CHANGES_PER_TURN);
        for (let i = at; i < end; i++) results.push(enqueue(changes[i]!, force, batched));
      }
      return Promise.all(results);
    },
    async close() {
      closed = true;
      for (const wake of [...sleeps]) wake();
      while (running.size > 0) await Promise.all([...running]);
    },
  };
}
