// Reconciliation with the Resource List (audit + repair through the verified writer), periodic in
// the daemon and on demand (`audit NAME --repair`). One `reconcile.completed` line and one metric per
// run; it runs on the ordering lane so it never races an apply.
import { describeError } from '@rsnotify/shared';
import { reconcileMirror, type ReconcileResult } from '../audit/index.js';
import { SubscriberError } from '../errors/index.js';
import { reconciliationRecord } from '../status/index.js';
import type { RunnerContext } from './context.js';
import { isOutdated, recordResults } from './results.js';

/** The outcome label of one reconciliation. */
export function reconcileOutcome(
  r: ReconcileResult,
): 'failed' | 'repaired' | 'in-sync' | 'source-changing' {
  if (r.failed > 0) return 'failed';
  if (r.fetched + r.removed > 0) return 'repaired';
  return r.report.inSync ? 'in-sync' : 'source-changing';
}

export async function reconcile(
  ctx: RunnerContext,
  reason: 'periodic' | 'manual',
): Promise<ReconcileResult> {
  const { repo, metrics } = ctx.rt;
  const count = (outcome: string): void =>
    metrics.reconciles.inc({ source: ctx.cfg.name, outcome });
  try {
    if (!ctx.source.resourceListUrl)
      throw new SubscriberError(
        'RSN_AUDIT_NO_RESOURCELIST',
        'the Capability List has no Resource List',
      );
    const r = await reconcileMirror({
      resourceListUrl: ctx.source.resourceListUrl,
      mirrorDir: ctx.cfg.mirrorDir,
      http: ctx.rt.http,
      mirror: ctx.mirror,
      knownUris: () => repo.listResourceUris(ctx.source.id),
      lastChangeKey: async (uri) => (await repo.getResource(ctx.source.id, uri))?.lastChangeKey,
    });
    await recordResults(
      ctx,
      r.results.filter((x) => x.outcome !== 'failed' || !isOutdated(x)),
    );
    const result = reconcileOutcome(r);
    count(result);
    await repo.recordReconciliation(
      ctx.source.id,
      reconciliationRecord(reason, ctx.now(), result, r),
    );
    const level = r.fetched + r.removed + r.failed > 0 ? 'warn' : 'info';
    ctx.log[level](
      {
        event: 'reconcile.completed',
        reason,
        result,
        inSyncBefore: r.report.inSync,
        checked: r.report.checked,
        missing: r.report.missing.length,
        extra: r.report.extra.length,
        different: r.report.different.length,
        fetched: r.fetched,
        removed: r.removed,
        failed: r.failed,
        changedMeanwhile: r.changedMeanwhile,
      },
      'reconcile.completed',
    );
    return r;
  } catch (err) {
    count('failed');
    const e = describeError(err);
    await repo
      .recordReconciliation(
        ctx.source.id,
        reconciliationRecord(reason, ctx.now(), 'failed', undefined, e.message),
      )
      .catch(() => undefined);
    ctx.log.warn(
      { event: 'reconcile.failed', reason, code: e.code, error: e.message },
      'reconcile.failed',
    );
    throw err;
  }
}

/** Reconciles every `reconcileInterval` (0: never) on the ordering lane. */
export function scheduleReconcile(ctx: RunnerContext): void {
  const every = ctx.cfg.reconcileInterval;
  if (!every || every <= 0) return;
  ctx.timers.later('reconcile', every, () =>
    ctx.enqueue(async () => {
      if (ctx.ready) await reconcile(ctx, 'periodic').catch(() => undefined);
      scheduleReconcile(ctx);
    }),
  );
}
