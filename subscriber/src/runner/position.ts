// Establishing and advancing the position outside notifications: resume a stored one (and catch up
// on what was published meanwhile, M-7), or take a baseline; and the catch-up to now that start-up,
// polling, `sync` and a renewed subscription use.
import { parseDateTime } from '@rsnotify/shared';
import type { CatchUpTrigger } from '../catchup/index.js';
import { initialOrderingState, rebaselined } from '../ordering/index.js';
import { retryDelayMs } from '../subscription/index.js';
import { takeBaseline } from './baseline-step.js';
import { runCatchUpStep, type CatchUpOutcome } from './catch-up-step.js';
import { nextTurnOfLoop, type RunnerContext } from './context.js';
import { feedStoredRows, READ_BACK_BATCH } from './inbox-feed.js';
import { processTransition } from './notifications.js';

/**
 * Catch-up to whatever the Change Lists hold now: only when no step is in flight. The position moves
 * only over what the lists prove (RC-21..RC-24).
 */
export async function catchUpToNow(
  ctx: RunnerContext,
  trigger: Exclude<CatchUpTrigger, 'gap'>,
): Promise<CatchUpOutcome> {
  const from = ctx.ordering.syncedUntil;
  if (!from || ctx.ordering.applying) return { result: 'skipped' };
  if (!ctx.source.changeListUrl)
    return { result: 'skipped', error: 'the Capability List has no Change List' };
  const step = await runCatchUpStep(ctx, trigger, from);
  if (step.transition) await processTransition(ctx, step.transition);
  return step.outcome;
}

/**
 * Daemon start: resume the stored position (then catch up), or baseline when the config or polling
 * mode asks for one, else wait for the first notification. Then feed the inbox to the ordering.
 * Returns false when a baseline is needed but failed (the caller retries).
 */
export async function establishPosition(ctx: RunnerContext): Promise<boolean> {
  const { repo } = ctx.rt;
  const pos = await repo.getPosition(ctx.source.id);
  if (pos?.syncedUntil) {
    ctx.ordering = initialOrderingState(parseDateTime(pos.syncedUntil));
    ctx.persisted = {
      syncedUntil: pos.syncedUntil,
      ...(pos.gapOpenedAt !== undefined ? { gapOpenedAt: pos.gapOpenedAt } : {}),
    };
    ctx.log.info({ event: 'position.resumed', syncedUntil: pos.syncedUntil }, 'position.resumed');
    // M-7: whatever was published while we were down comes from the Change Lists.
    await catchUpToNow(ctx, 'startup');
  } else if (ctx.cfg.baseline === 'resourcelist' || ctx.source.mode === 'poll') {
    const at = await takeBaseline(ctx, 'initial');
    if (!at) return false;
    await processTransition(ctx, rebaselined(ctx.ordering, at, ctx.now(), ctx.opts));
    await catchUpToNow(ctx, 'baseline');
  } else {
    ctx.ordering = initialOrderingState();
  }
  ctx.ready = true;
  // Deliveries from now on queue behind this step; the stored ones are fed first, in order, a page
  // at a time (a backlog left by a long outage is not read into memory at once: inbox-feed.ts),
  // and count as buffered (status) until they are.
  ctx.unfedInbox = (await repo.counters(ctx.source.id)).openInbox;
  let afterId = 0;
  for (;;) {
    const rows = await repo.listOpenInbox(ctx.source.id, { afterId, limit: READ_BACK_BATCH });
    await feedStoredRows(ctx, rows, (row) => {
      afterId = row.id;
      ctx.unfedInbox = Math.max(0, ctx.unfedInbox - 1);
    });
    if (rows.length < READ_BACK_BATCH || ctx.closed) break;
    await nextTurnOfLoop();
  }
  ctx.unfedInbox = 0;
  return true;
}

/** Retries establishPosition() with backoff until it succeeds (or the runner stops). */
export function establishWithRetry(ctx: RunnerContext, attempt = 0): Promise<void> {
  return establishPosition(ctx).then((ok) => {
    if (ok) return;
    const delay = retryDelayMs(attempt + 1, ctx.rt.leasePolicy, ctx.rt.random);
    ctx.timers.later('establish', delay, () =>
      ctx.enqueue(() => establishWithRetry(ctx, attempt + 1)),
    );
  });
}
