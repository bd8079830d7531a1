// A baseline from the Resource List (RC-14..RC-16): on first start, in polling mode without a
// position, and when the Change Lists no longer reach back to the position (M-7). Counted in its own
// metric (`baselines`), not as a catch-up.
import { describeError, type DateTime } from '@rsnotify/shared';
import { runBaseline } from '../baseline/index.js';
import { collectChanges, remainingFailures } from '../catchup/index.js';
import type { ApplyResult } from '../mirror/index.js';
import type { RunnerContext } from './context.js';
import { asKnownFailure, asSuperseded, isOutdated, isRefused, recordResults } from './results.js';

export type BaselineReason = 'initial' | 'history-gone' | 'manual';

/** Runs a baseline; returns its `at`, or undefined when it could not complete. */
export async function takeBaseline(
  ctx: RunnerContext,
  reason: BaselineReason,
): Promise<DateTime | undefined> {
  const { repo, metrics } = ctx.rt;
  const count = (result: 'done' | 'incomplete' | 'failed'): void =>
    metrics.baselines.inc({ source: ctx.cfg.name, result });
  const resourceListUrl = ctx.source.resourceListUrl;
  if (!resourceListUrl) {
    count('failed');
    await ctx.setError('baseline impossible: the Capability List has no Resource List');
    ctx.log.error(
      { event: 'baseline.failed', reason, error: 'no Resource List' },
      'baseline.failed',
    );
    return undefined;
  }
  ctx.log.info(
    { event: 'baseline.started', reason, resourceList: resourceListUrl },
    'baseline.started',
  );
  try {
    // previousUris: what the mirror held and the list no longer has was deleted meanwhile.
    const r = await runBaseline(resourceListUrl, ctx.rt.http, ctx.mirror, {
      previousUris: () => repo.listResourceUris(ctx.source.id),
    });
    const refused = r.failed.filter(isRefused);
    if (refused.length > 0) await recordResults(ctx, refused);
    const others = r.failed.filter((f) => !isRefused(f));
    const unresolved = others.length > 0 ? await resolveBaselineFailures(ctx, r.at, others) : [];
    if (unresolved.length > 0) {
      await recordResults(ctx, unresolved);
      count('incomplete');
      ctx.log.warn(
        { event: 'baseline.incomplete', reason, failed: unresolved.length, resources: r.resources },
        'baseline.incomplete',
      );
      return undefined;
    }
    await repo.savePosition(ctx.source.id, {
      syncedUntil: r.at.lexical,
      baselineAt: r.at.lexical,
      baselineRanAt: ctx.now(),
    });
    ctx.persisted = { syncedUntil: r.at.lexical };
    count('done');
    ctx.log.info(
      { event: 'baseline.completed', reason, at: r.at.lexical, resources: r.resources },
      'baseline.completed',
    );
    await ctx.clearError();
    return r.at;
  } catch (err) {
    const e = describeError(err);
    count('failed');
    ctx.log.warn(
      { event: 'baseline.failed', reason, code: e.code, error: e.message },
      'baseline.failed',
    );
    await ctx.setError(`baseline failed: ${e.message}`);
    return undefined;
  }
}

/**
 * RC-15: a resource that changed after the list's `at` no longer matches its listed hash or length
 * (or is gone). Such a failure is no failure when the Change Lists from `at` hold a later change of
 * that URI: the catch-up from `at` that follows every baseline applies that change, under the same
 * rules as any other (a mismatch nothing explains holds the position). Fetching it here instead would
 * fail again on a Source that keeps changing, and the baseline would never complete. Records the
 * explained failures as superseded; returns the failures that remain.
 */
async function resolveBaselineFailures(
  ctx: RunnerContext,
  at: DateTime,
  failed: readonly ApplyResult[],
): Promise<ApplyResult[]> {
  if (!ctx.source.changeListUrl || !failed.every(isOutdated)) return [...failed];
  try {
    const c = await collectChanges(
      { changeListUrl: ctx.source.changeListUrl },
      at,
      undefined,
      ctx.rt.http,
    );
    if (c.historyGone) return [...failed];
    const remaining = remainingFailures(failed.map(asKnownFailure), c.changes).map((f) => f.result);
    const stands = new Set(remaining);
    await recordResults(ctx, failed.filter((f) => !stands.has(f)).map(asSuperseded));
    ctx.log.info(
      {
        event: 'baseline.failures_resolved',
        failed: failed.length,
        resolved: failed.length - remaining.length,
      },
      'baseline.failures_resolved',
    );
    return remaining;
  } catch {
    return [...failed];
  }
}
