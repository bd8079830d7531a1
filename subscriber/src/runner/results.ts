// What the runner does with the mirror's apply results: the failure policy (catchup/coverage.ts)
// says which failures a later change explains and which must hold the position; this file looks the
// later changes up (buffered notifications, the Change Lists) and records every outcome once (events
// table, metrics, log, the source's last error).
import type { DateTime } from '@rsnotify/shared';
import {
  classifyFailure,
  collectChanges,
  holdsPosition,
  isOutdatable,
  remainingFailures,
  type FailureKind,
  type KnownFailure,
} from '../catchup/index.js';
import type { ApplyResult } from '../mirror/index.js';
import type { EventRecord } from '../store/index.js';
import { nextTurnOfLoop, type RunnerContext } from './context.js';

/**
 * The most events one commit records (4,096 took 13-24 ms of SQLite inserts under the
 * subscriber-stall bench, the longest slice left once a notification's entries were sliced too);
 * also the entries and results gone through per turn of the event loop.
 */
export const EVENTS_PER_COMMIT = 2048;

/**
 * The failed changes of one record (a notification's attempt, a catch-up step, a baseline) that get
 * a log line each; the rest are counted in one `mirror.failures_unlogged` line. The events table
 * and the metrics still hold every one: a Source that is down fails every change of a 78,000-entry
 * notification, and a line per change would drown the log (journald drops what passes its rate
 * limit, 10,000 lines per 30 s by default, other lines included). A retry logs and records only the
 * failures that are new (failure-memory.ts).
 */
export const FAILURE_LINES_PER_RECORD = 20;

export const failureKind = (r: ApplyResult): FailureKind =>
  r.error ? classifyFailure(r.error) : 'blocking';

/** The path mapping refuses the URI: reported, never retried. */
export const isRefused = (r: ApplyResult): boolean =>
  r.outcome === 'failed' && failureKind(r) === 'refused';

/** A failed change that a later change of the same URI explains (hash/length mismatch, 404/410). */
export const isOutdated = (r: ApplyResult): boolean =>
  r.outcome === 'failed' && isOutdatable(failureKind(r));

/**
 * A fetched resource that does not match the hash/length its change announced (or is gone) has
 * usually changed again since (the Source serves only its current bytes). That is no failure when a
 * later change of the same URI is known: in a buffered notification, or in the Change Lists after
 * `after`. Such results become 'skipped' (superseded); the later change brings the current bytes.
 * Without a later change the mismatch stands (never kept, promise 3).
 */
export async function supersedeOutdated(
  ctx: RunnerContext,
  results: ApplyResult[],
  after: DateTime | undefined,
): Promise<ApplyResult[]> {
  const outdated = results.filter(isOutdated).map(asKnownFailure);
  if (outdated.length === 0) return results;
  const later: { uri: string; time?: DateTime }[] = [];
  for (const b of ctx.ordering.buffer) {
    const n = await ctx.notificationBody(b.id);
    // A buffered notification is after the one being applied: its entries are later changes.
    for (const e of n?.entries ?? []) later.push({ uri: e.loc });
  }
  let remaining = remainingFailures(outdated, later);
  if (remaining.length > 0 && ctx.source.changeListUrl && after) {
    try {
      const c = await collectChanges(
        { changeListUrl: ctx.source.changeListUrl },
        after,
        undefined,
        ctx.rt.http,
      );
      remaining = remainingFailures(remaining, c.changes);
    } catch {
      // The lists cannot tell now: the mismatch stands and the step is retried.
    }
  }
  const stands = new Set(remaining.map((f) => f.result));
  const explained = new Set(outdated.map((f) => f.result).filter((r) => !stands.has(r)));
  if (explained.size === 0) return results;
  ctx.log.debug(
    { event: 'mirror.outdated_change', uris: explained.size },
    'mirror.outdated_change',
  );
  return results.map((r) => (explained.has(r) ? asSuperseded(r) : r));
}

/** A failed result as the failure policy sees it (the result kept to map the verdict back). */
export function asKnownFailure(r: ApplyResult): KnownFailure & { readonly result: ApplyResult } {
  return { uri: r.uri, kind: failureKind(r), ...(r.time ? { time: r.time } : {}), result: r };
}

/** A failure a later change explains: skipped as superseded (that change brings the bytes). */
export function asSuperseded(r: ApplyResult): ApplyResult {
  return {
    uri: r.uri,
    change: r.change,
    outcome: 'skipped',
    skipped: 'superseded',
    ...(r.time ? { time: r.time } : {}),
  };
}

/** The source's last error (status) when this failure is the record's first. */
const failureSummary = (r: ApplyResult): string =>
  `${r.error?.code ?? 'failed'}: ${r.uri}: ${r.error?.message ?? ''}`;

function failureEvent(
  r: ApplyResult,
  kind: FailureKind,
):
  | 'mirror.path_refused'
  | 'mirror.resource_gone'
  | 'mirror.hash_mismatch'
  | 'mirror.length_mismatch'
  | 'mirror.apply_failed' {
  if (kind === 'refused') return 'mirror.path_refused';
  if (kind === 'gone') return 'mirror.resource_gone';
  if (r.error?.code === 'RSN_HASH_MISMATCH') return 'mirror.hash_mismatch';
  if (r.error?.code === 'RSN_LENGTH_MISMATCH') return 'mirror.length_mismatch';
  return 'mirror.apply_failed';
}

/** What one attempt's results came to. */
export interface Recorded {
  /** Failures that hold the position (promise 3), repeated ones included. */
  readonly failed: number;
  /** Failures recorded before and still standing: counted, not recorded again. */
  readonly repeated: number;
}

/**
 * Records each outcome (events table, metrics); counts the failures that must hold the position
 * (promise 3). A URI refused by the path mapping (promise 4) or gone at the Source is recorded and
 * reported but cannot block: no retry will ever bring it. With `rememberFailures` (the records that
 * are retried: notifications and catch-ups; failure-memory.ts), a failure recorded before and still
 * standing is counted in the metric and in `repeated`, not recorded or logged again, and a record
 * with nothing holding the position clears that memory. With `writes`, the events' (last) write
 * is added there instead of awaited, as a trailing write (the caller submits more writes in the
 * same turn and does not wait for them, so all of them share one commit).
 */
export async function recordResults(
  ctx: RunnerContext,
  results: readonly ApplyResult[],
  options: { rememberFailures?: boolean; writes?: Promise<unknown>[] } = {},
): Promise<Recorded> {
  const { writes } = options;
  const memory = options.rememberFailures ? ctx.failureMemory : undefined;
  let repeated = 0;
  const now = ctx.now();
  const events: EventRecord[] = [];
  const perOutcome = new Map<ApplyResult['outcome'], number>();
  let failed = 0;
  let firstError: string | undefined;
  let logged = 0;
  let unlogged: Map<string, number> | undefined; // only when a record has that many failures
  for (let i = 0; i < results.length; i++) {
    // Tens of thousands of results (~0.8 µs each) are gone through a slice per turn of the loop.
    if (i > 0 && i % EVENTS_PER_COMMIT === 0) await nextTurnOfLoop();
    const r = results[i]!;
    perOutcome.set(r.outcome, (perOutcome.get(r.outcome) ?? 0) + 1);
    if (r.outcome !== 'failed') memory?.settled(r);
    else if (memory?.repeats(r)) {
      if (holdsPosition(failureKind(r))) failed++;
      firstError ??= failureSummary(r);
      repeated++;
      continue;
    }
    if (r.outcome === 'skipped') continue;
    events.push(
      r.error
        ? {
            at: now,
            uri: r.uri,
            change: r.change,
            outcome: r.outcome,
            errorCode: r.error.code,
            error: r.error.message.slice(0, 500),
          }
        : { at: now, uri: r.uri, change: r.change, outcome: r.outcome },
    );
    if (r.outcome !== 'failed') continue;
    const kind = failureKind(r);
    if (holdsPosition(kind)) failed++;
    firstError ??= failureSummary(r);
    const event = failureEvent(r, kind);
    if (logged === FAILURE_LINES_PER_RECORD) {
      unlogged ??= new Map();
      unlogged.set(event, (unlogged.get(event) ?? 0) + 1);
      continue;
    }
    logged++;
    ctx.log.warn(
      { event, uri: r.uri, change: r.change, code: r.error?.code, error: r.error?.message },
      event,
    );
  }
  if (unlogged) {
    ctx.log.warn(
      {
        event: 'mirror.failures_unlogged',
        logged,
        unlogged: [...unlogged.values()].reduce((a, b) => a + b, 0),
        byEvent: Object.fromEntries(unlogged),
      },
      'mirror.failures_unlogged',
    );
  }
  for (const [outcome, n] of perOutcome)
    ctx.rt.metrics.changesApplied.inc({ source: ctx.cfg.name, outcome }, n);
  // A notification of tens of thousands of changes: all but the last EVENTS_PER_COMMIT events are
  // committed first, a commit each, so that no single commit holds the event loop for their whole
  // insert (~2.5 µs a row: 78,000 rows took 250 ms). If the process dies before the last commit,
  // the notification is applied again and records that attempt too, as a retried apply does.
  let first = 0;
  for (; events.length - first > EVENTS_PER_COMMIT; first += EVENTS_PER_COMMIT)
    await ctx.rt.repo.addEvents(ctx.source.id, events.slice(first, first + EVENTS_PER_COMMIT));
  const recorded = ctx.rt.repo.addEvents(
    ctx.source.id,
    first === 0 ? events : events.slice(first),
    { trailing: writes !== undefined },
  );
  if (writes) writes.push(recorded);
  else await recorded;
  const changed = (perOutcome.get('written') ?? 0) + (perOutcome.get('deleted') ?? 0);
  if (changed > 0) ctx.lastAppliedAt = now; // persisted with the next position write
  if (firstError) await ctx.setError(firstError);
  if (failed === 0) memory?.forget();
  return { failed, repeated };
}
