// The ordering lane's effect executor: feeds stored notifications to the pure ordering engine
// (ordering/), carries out the effects it returns (apply a notification, drop a covered one, note a
// gap, catch up) and adopts the transitions they lead to, persisting the position after each.
import {
  compareDateTime,
  describeError,
  entryToChange,
  parseChangeNotificationInSlices,
  type Change,
  type ChangeNotification,
  type DateTime,
} from '@rsnotify/shared';
import { EntrySelector } from '../catchup/index.js';
import {
  applied,
  nextWakeAt,
  receive,
  tick,
  type OrderingEffect,
  type Transition,
} from '../ordering/index.js';
import type { WriteOptions } from '../store/index.js';
import { retryDelayMs } from '../subscription/index.js';
import { runCatchUpStep } from './catch-up-step.js';
import { nextTurnOfLoop, type RunnerContext } from './context.js';
import { EVENTS_PER_COMMIT, recordResults, supersedeOutdated } from './results.js';

/** Backoff of a notification whose changes did not all apply (promise 3: it is retried, not lost). */
const APPLY_RETRY = { retryInitialMs: 1_000, retryMaxMs: 60_000 };

/** The writes a step submits last and does not wait for (see processTransition). */
const TRAILING: WriteOptions = { trailing: true };

/**
 * RC-23: the changes of a notification to apply; after an overlap only those past `after`. The
 * entries are gone through EVENTS_PER_COMMIT per turn of the event loop: 78,000 of them took 15 ms.
 */
export async function notificationChanges(
  n: ChangeNotification | undefined,
  after: DateTime | undefined,
): Promise<Change[]> {
  const changes: Change[] = [];
  const selector =
    after && n
      ? new EntrySelector(after, undefined, compareDateTime(n.from, after) >= 0)
      : undefined;
  const entries = n?.entries ?? [];
  for (let i = 0; i < entries.length; i++) {
    if (i > 0 && i % EVENTS_PER_COMMIT === 0) await nextTurnOfLoop();
    const c = entryToChange(entries[i]!);
    if (!c) continue;
    if (selector) changes.push(...selector.push(c));
    else changes.push(c);
  }
  if (selector) changes.push(...selector.end());
  return changes;
}

/** One inbox row into the ordering: parsed (an invalid one is recorded and dropped), then received. */
export async function receiveRow(
  ctx: RunnerContext,
  id: number,
  body: Buffer,
  receivedAt: number,
): Promise<void> {
  if (id <= ctx.lastFedId) return; // offered already (context.ts)
  ctx.lastFedId = id;
  let n: ChangeNotification;
  try {
    // In slices: a 10 MiB notification parsed in one piece held the event loop for ~300 ms.
    n = await parseChangeNotificationInSlices(body);
  } catch (err) {
    const e = describeError(err);
    // RN-14/RT-17: an invalid payload is recorded and dropped; it cannot move the position.
    await ctx.rt.repo.updateInbox(id, {
      state: 'invalid',
      error: `${e.code ?? ''} ${e.message}`.trim().slice(0, 500),
    });
    ctx.log.warn(
      { event: 'notification.invalid', inboxId: id, code: e.code, error: e.message },
      'notification.invalid',
    );
    return;
  }
  ctx.parsed.set(id, n);
  if (!ctx.newestUntil || compareDateTime(n.until, ctx.newestUntil) > 0) ctx.newestUntil = n.until;
  ctx.log.debug(
    {
      event: 'notification.received',
      inboxId: id,
      from: n.from.lexical,
      until: n.until.lexical,
      entries: n.entries.length,
    },
    'notification.received',
  );
  await processTransition(
    ctx,
    receive(ctx.ordering, { id, from: n.from, until: n.until, receivedAt }, ctx.now(), ctx.opts),
  );
}

/** Adopts a transition, persists it, and carries out its effects (and theirs) in order. */
export async function processTransition(ctx: RunnerContext, t: Transition): Promise<void> {
  ctx.ordering = t.state;
  await ctx.persistOrdering();
  const queue: OrderingEffect[] = [...t.effects];
  while (queue.length > 0 && !ctx.closed) {
    const next = await execute(ctx, queue.shift()!);
    if (next) ctx.ordering = next.state;
    // Submitted in one turn, the effect's last writes and the position share a commit. Nothing
    // waits for it (trailing writes): the next effect or notification goes on meanwhile, so under
    // a burst the writes of many notifications share one commit. The position still moves only
    // after the apply it records (promise 3); group commits keep submission order, so a later
    // position is never overwritten by an earlier one.
    ctx.lane.trail(
      Promise.all([...ctx.writesWithPosition.splice(0), next && ctx.persistOrdering(TRAILING)]),
    );
    if (next) queue.push(...next.effects);
  }
  scheduleTick(ctx);
  updateGauges(ctx);
}

function scheduleTick(ctx: RunnerContext): void {
  const at = nextWakeAt(ctx.ordering, ctx.opts);
  if (at === undefined) return;
  ctx.timers.later('tick', at - ctx.now(), () =>
    ctx.enqueue(() => processTransition(ctx, tick(ctx.ordering, ctx.now(), ctx.opts))),
  );
}

function updateGauges(ctx: RunnerContext): void {
  const source = ctx.cfg.name;
  ctx.rt.metrics.buffered.set({ source }, ctx.ordering.buffer.length);
  const p = ctx.ordering.syncedUntil;
  ctx.rt.metrics.lagSeconds.set(
    { source },
    p && ctx.newestUntil ? Math.max(0, ctx.newestUntil.epochMs - p.epochMs) / 1000 : 0,
  );
}

async function execute(
  ctx: RunnerContext,
  effect: OrderingEffect,
): Promise<Transition | undefined> {
  const { metrics } = ctx.rt;
  switch (effect.kind) {
    case 'supersede':
      await finishRow(ctx, effect.id, 'superseded');
      metrics.notificationsSuperseded.inc({ source: ctx.cfg.name, reason: effect.reason });
      ctx.log.debug(
        { event: 'notification.superseded', inboxId: effect.id, reason: effect.reason },
        'notification.superseded',
      );
      return undefined;
    case 'gap-detected':
      metrics.gaps.inc({ source: ctx.cfg.name });
      await ctx.rt.repo.recordGap(ctx.source.id, {
        from: effect.from.lexical,
        to: effect.to.lexical,
        detectedAt: ctx.now(),
      });
      ctx.log.info(
        { event: 'ordering.gap_detected', from: effect.from.lexical, to: effect.to.lexical },
        'ordering.gap_detected',
      );
      return undefined;
    case 'apply':
      return applyNotification(ctx, effect);
    case 'catch-up':
      return (await runCatchUpStep(ctx, 'gap', effect.from, effect.to)).transition;
  }
}

/** One write per notification at its end: its state plus the interval it covered (for status). */
async function finishRow(
  ctx: RunnerContext,
  id: number,
  state: 'applied' | 'superseded',
  options?: WriteOptions,
): Promise<void> {
  const n = ctx.parsed.get(id);
  ctx.parsed.delete(id);
  await ctx.rt.repo.updateInbox(
    id,
    { state, ...(n ? { from: n.from.lexical, until: n.until.lexical } : {}) },
    options,
  );
}

async function applyNotification(
  ctx: RunnerContext,
  effect: Extract<OrderingEffect, { kind: 'apply' }>,
): Promise<Transition | undefined> {
  const changes = await notificationChanges(await ctx.notificationBody(effect.id), effect.after);
  const results = await supersedeOutdated(ctx, await ctx.mirror.apply(changes), effect.until);
  // The events join the row's state and the position in one commit (processTransition submits
  // them together).
  const { failed, repeated } = await recordResults(ctx, results, {
    rememberFailures: true,
    writes: ctx.writesWithPosition,
  });
  if (failed > 0) {
    ctx.applyFailures++;
    const delay = retryDelayMs(ctx.applyFailures, APPLY_RETRY, ctx.rt.random);
    ctx.log.warn(
      { event: 'apply.failed', inboxId: effect.id, failed, repeated, retryInMs: delay },
      'apply.failed',
    );
    // Promise 3: the position stays until every change of the interval is really applied.
    ctx.timers.later('apply-retry', delay, () =>
      ctx.enqueue(() => processTransition(ctx, { state: ctx.ordering, effects: [effect] })),
    );
    return undefined;
  }
  if (ctx.applyFailures > 0) await ctx.clearError();
  ctx.applyFailures = 0;
  // The row's state and the position it moves go in one commit (processTransition submits them
  // together): atomic, and one transaction fewer per notification than writing them in turn.
  ctx.writesWithPosition.push(finishRow(ctx, effect.id, 'applied', TRAILING));
  ctx.rt.metrics.notificationsApplied.inc({ source: ctx.cfg.name });
  ctx.log.debug(
    {
      event: 'notification.applied',
      inboxId: effect.id,
      until: effect.until.lexical,
      changes: changes.length,
    },
    'notification.applied',
  );
  return applied(ctx.ordering, effect.id, ctx.now(), ctx.opts);
}
