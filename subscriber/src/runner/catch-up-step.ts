// One catch-up step with an optional end: read the Change Lists from the position (to the end of a
// gap, or to whatever they hold now), apply what they list, and let the pure verdict
// (catchup/verdict.ts) say what it proved. Every step is counted exactly once, alike in the catch-up
// table (`status`), the catch-ups metric and the log (one terminal `catchup.*` event).
import { describeError, type DateTime } from '@rsnotify/shared';
import {
  collectChanges,
  judgeCatchUp,
  type CatchUpFacts,
  type CatchUpResultKind,
  type CatchUpTrigger,
  type CatchUpVerdict,
  type HistoryGoneReason,
} from '../catchup/index.js';
import { catchUpFailed, caughtUp, rebaselined, type Transition } from '../ordering/index.js';
import { takeBaseline } from './baseline-step.js';
import type { RunnerContext } from './context.js';
import { recordResults, supersedeOutdated } from './results.js';

/** What one catch-up proved and applied (`sync` reports it and exits on it). */
export interface CatchUpOutcome {
  /** up-to-date: the lists reach the position but prove nothing after it yet (nothing new). */
  readonly result: CatchUpResultKind | 'skipped';
  readonly changes?: number;
  readonly failed?: number;
  readonly coveredTo?: string;
  readonly historyGone?: HistoryGoneReason;
  /** After history-gone: whether the re-baseline from the Resource List succeeded. */
  readonly rebaselined?: boolean;
  readonly error?: string;
}

export interface CatchUpStepResult {
  readonly outcome: CatchUpOutcome;
  /** The ordering transition to adopt (undefined: nothing changes). */
  readonly transition?: Transition;
}

/** Reads and applies; never throws (a failure is a fact the verdict judges). */
async function collectAndApply(
  ctx: RunnerContext,
  from: DateTime,
  to: DateTime | undefined,
): Promise<CatchUpFacts> {
  const url = ctx.source.changeListUrl;
  if (!url)
    return {
      kind: 'error',
      code: 'RSN_CATCHUP_NO_CHANGELIST',
      message: 'the Capability List has no Change List',
    };
  try {
    const r = await collectChanges({ changeListUrl: url }, from, to, ctx.rt.http);
    if (r.historyGone)
      return {
        kind: 'history-gone',
        ...(r.historyGoneReason ? { reason: r.historyGoneReason } : {}),
      };
    const results = await supersedeOutdated(
      ctx,
      await ctx.mirror.apply(r.changes),
      r.coveredTo ?? to,
    );
    const { failed } = await recordResults(ctx, results, {
      rememberFailures: true,
    });
    return {
      kind: 'collected',
      changes: r.changes.length,
      ...(r.coveredTo ? { coveredTo: r.coveredTo } : {}),
      reachesPosition: r.reachesPosition === true,
      failed,
    };
  } catch (err) {
    const e = describeError(err);
    return { kind: 'error', ...(e.code ? { code: e.code } : {}), message: e.message };
  }
}

function logVerdict(ctx: RunnerContext, v: CatchUpVerdict, fields: Record<string, unknown>): void {
  ctx.log[v.level]({ event: v.event, ...fields, ...(v.why ? { why: v.why } : {}) }, v.event);
}

/**
 * One catch-up from `from` (the position) to `to` (the end of a gap) or, without `to`, to now. The
 * caller makes sure no other step is in flight (the ordering lane).
 */
export async function runCatchUpStep(
  ctx: RunnerContext,
  trigger: CatchUpTrigger,
  from: DateTime,
  to?: DateTime,
): Promise<CatchUpStepResult> {
  const { repo } = ctx.rt;
  const id = await repo.startCatchUp(
    ctx.source.id,
    trigger === 'resubscribed' ? 'startup' : trigger,
    from.lexical,
    to?.lexical,
    ctx.now(),
  );
  ctx.log.debug(
    { event: 'catchup.started', reason: trigger, from: from.lexical, to: to?.lexical },
    'catchup.started',
  );
  const facts = await collectAndApply(ctx, from, to);
  const v = judgeCatchUp(facts, to);
  const changes = facts.kind === 'collected' ? facts.changes : undefined;
  const coveredTo = v.next.kind === 'caught-up' ? v.next.to.lexical : undefined;
  await repo.finishCatchUp(id, {
    state: v.state,
    ...(changes !== undefined ? { changes } : {}),
    ...(v.why ? { lastError: v.why.slice(0, 500) } : {}),
    ...(coveredTo ? { to: coveredTo } : {}),
    finishedAt: ctx.now(),
  });
  ctx.rt.metrics.catchUps.inc({ source: ctx.cfg.name, result: v.metric });
  logVerdict(ctx, v, {
    reason: trigger,
    from: from.lexical,
    ...(to ? { to: to.lexical } : {}),
    ...(coveredTo ? { coveredTo } : {}),
    ...(changes !== undefined ? { changes } : {}),
    ...(facts.kind === 'error' && facts.code ? { code: facts.code } : {}),
  });
  if (v.setsError) await ctx.setError(v.setsError);
  if (v.clearsError && ctx.applyFailures === 0) await ctx.clearError();

  const base: CatchUpOutcome = {
    result: v.result,
    ...(changes !== undefined ? { changes } : {}),
    ...(facts.kind === 'collected' ? { failed: facts.failed } : {}),
    ...(coveredTo ? { coveredTo } : {}),
    ...(facts.kind === 'error' ? { error: facts.message } : {}),
  };
  const now = ctx.now();
  switch (v.next.kind) {
    case 'caught-up':
      return { outcome: base, transition: caughtUp(ctx.ordering, v.next.to, now, ctx.opts) };
    case 'retry':
      return { outcome: base, transition: catchUpFailed(ctx.ordering, now, ctx.opts) };
    case 'nothing':
      return { outcome: base };
    case 're-baseline': {
      const at = await takeBaseline(ctx, 'history-gone');
      return {
        outcome: {
          ...base,
          ...(facts.kind === 'history-gone' && facts.reason ? { historyGone: facts.reason } : {}),
          rebaselined: at !== undefined,
        },
        transition: at
          ? rebaselined(ctx.ordering, at, ctx.now(), ctx.opts)
          : catchUpFailed(ctx.ordering, ctx.now(), ctx.opts),
      };
    }
  }
}
