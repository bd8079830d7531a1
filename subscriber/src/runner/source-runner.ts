// One Source inside the daemon, as a thin shell: it wires the steps (channel.ts: discovery,
// subscription and polling; notifications.ts: the ordering lane; position.ts and catch-up-step.ts:
// catch-up and baseline; reconcile-step.ts) to the daemon's events and timers. Decisions are made by
// pure modules (ordering/, catchup/verdict.ts, subscription/lifecycle.ts, channel-policy.ts).
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { parseDateTime } from '@rsnotify/shared';
import type { ReconcileResult } from '../audit/index.js';
import type { SourceConfig } from '../config.js';
import { createHookRunner, type HookRunner } from '../hooks/index.js';
import { createMirror, migrateMirrorLayout, sweepTempFiles } from '../mirror/index.js';
import { initialOrderingState } from '../ordering/index.js';
import { sourceStatus, type SourceStatus } from '../status/index.js';
import {
  createResourceStateStore,
  type SourceRecord,
  type SubscriptionRecord,
} from '../store/index.js';
import { SubscriberError } from '../errors/index.js';
import { takeBaseline } from './baseline-step.js';
import type { CatchUpOutcome } from './catch-up-step.js';
import { ChannelUpkeep } from './channel.js';
import { activationSettling } from './channel-policy.js';
import { RunnerContext } from './context.js';
import { InboxFeed } from './inbox-feed.js';
import { catchUpToNow, establishWithRetry } from './position.js';
import { reconcile, scheduleReconcile } from './reconcile-step.js';
import type { Runtime } from './runtime.js';

export class SourceRunner {
  private readonly ctx: RunnerContext;
  private readonly channel: ChannelUpkeep;
  private readonly feed: InboxFeed;
  private hooks?: HookRunner;
  /** Deliveries committed since the daemon started (the activation settling watches for one). */
  private deliveries = 0;

  constructor(
    private readonly rt: Runtime,
    readonly cfg: SourceConfig,
    private readonly withSubscription: boolean,
  ) {
    this.ctx = new RunnerContext(rt, cfg);
    this.channel = new ChannelUpkeep(this.ctx, withSubscription);
    this.feed = new InboxFeed(this.ctx, (rows) =>
      rt.metrics.deliveriesReadBack.inc({ source: cfg.name }, rows),
    );
  }

  get sourceId(): number {
    return this.ctx.source.id;
  }

  get source(): SourceRecord {
    return this.ctx.source;
  }

  async init(): Promise<void> {
    const { ctx, rt, cfg } = this;
    ctx.source = await rt.repo.ensureSource(cfg.name, cfg.url);
    if (this.withSubscription && ctx.source.subscriptionDisabled) {
      // `unsubscribe NAME` lasts until the daemon's next start.
      await rt.repo.updateSource(ctx.source.id, { subscriptionDisabled: false });
      ctx.source = { ...ctx.source, subscriptionDisabled: false };
    }
    if (cfg.hook) {
      this.hooks = createHookRunner(cfg.hook, {
        logger: ctx.log,
        dispatcher: rt.hubAgent,
        outbound: { allowPrivateNetworks: rt.cfg.allowPrivateNetworks },
      });
    }
    ctx.mirror = (rt.createMirror ?? createMirror)({
      mirrorDir: cfg.mirrorDir,
      http: rt.http,
      state: createResourceStateStore(rt.repo, ctx.source.id),
      perHostConcurrency: cfg.fetchConcurrencyPerHost,
      clock: rt.clock,
      // Hooks fire for every file written or removed, the baseline's included, once it is on disk.
      onApplied: (r) => {
        if (this.hooks && (r.outcome === 'written' || r.outcome === 'deleted')) {
          this.hooks.notify({
            source: cfg.name,
            uri: r.uri,
            change: r.change,
            ...(r.path ? { path: r.path } : {}),
            ...(r.time ? { time: r.time.lexical } : {}),
          });
        }
      },
    });
    await this.sweepTemporaries();
    await this.migrateLayout();
  }

  /** Removes the temporaries a killed writer left in the mirror, before anything is applied. */
  private async sweepTemporaries(): Promise<void> {
    const { removed, failed } = await sweepTempFiles(this.cfg.mirrorDir, this.rt.startedAtMs);
    if (removed + failed === 0) return;
    this.ctx.log.info(
      { event: 'mirror.temp_swept', mirrorDir: this.cfg.mirrorDir, removed, failed },
      'mirror.temp_swept',
    );
  }

  /**
   * Moves files an older mapping wrote to their current names (path.ts). A file that cannot be
   * moved makes the next start re-baseline (position cleared) rather than leave a hole.
   */
  async migrateLayout(): Promise<void> {
    const { ctx } = this;
    const { repo } = this.rt;
    const m = await migrateMirrorLayout(
      this.cfg.mirrorDir,
      await repo.listResourcePaths(ctx.source.id),
      (uri, path) => repo.setResourcePath(ctx.source.id, uri, path),
    );
    if (m.moved > 0)
      ctx.log.info(
        { event: 'mirror.layout_migrated', moved: m.moved, failed: m.failed.length },
        'mirror.layout_migrated',
      );
    if (m.failed.length === 0) return;
    ctx.log.error(
      {
        event: 'mirror.layout_migration_failed',
        failed: m.failed.length,
        uri: m.failed[0]!.uri,
        error: m.failed[0]!.error,
      },
      'mirror.layout_migration_failed',
    );
    await repo.savePosition(ctx.source.id, { syncedUntil: undefined } as { syncedUntil?: string });
  }

  /** Daemon start: discovery, subscription, position, then the inbox. */
  start(): void {
    const { ctx } = this;
    ctx.enqueue(() =>
      this.channel.discoverWithRetry(async () => {
        // Subscribe before the baseline so notifications published meanwhile wait in the inbox.
        this.channel.reconcileSubscription();
        await establishWithRetry(ctx);
        if (ctx.source.mode === 'poll') this.channel.schedulePoll(0);
        scheduleReconcile(ctx);
      }),
    );
  }

  /** The intake saw a verification for one of our subscriptions. */
  subscriptionChanged(rec: SubscriptionRecord): void {
    const { ctx } = this;
    this.channel.reconcileSubscription();
    if (rec.state !== 'active' || rec.renewsId !== undefined) return;
    // M-7: after a lapse (expiry, denial, downtime) notifications may have been missed.
    ctx.enqueue(async () => {
      if (ctx.ready) await catchUpToNow(ctx, 'resubscribed');
    });
    this.settleActivation(rec.id, ctx.now() + ctx.opts.gapTimeoutMs, this.deliveries, 0);
  }

  /** Reads the lists again after a fresh activation until they prove past it (channel-policy.ts). */
  private settleActivation(
    subscriptionId: number,
    settleByMs: number,
    deliveriesBefore: number,
    reads: number,
  ): void {
    const { ctx } = this;
    const settling = (readsSoFar: number) =>
      activationSettling({
        // Not established yet: nothing proven, so read again (the read is skipped, and counted).
        positionMs: ctx.ready ? ctx.ordering.syncedUntil?.epochMs : -Infinity,
        settleByMs,
        reads: readsSoFar,
        delivered: this.deliveries > deliveriesBefore,
      });
    ctx.timers.later('activation-settle', ctx.opts.gapTimeoutMs, () =>
      ctx.enqueue(async () => {
        let readsDone = reads;
        let next = settling(readsDone);
        if (next.kind === 'read-again') {
          if (ctx.ready) await catchUpToNow(ctx, 'resubscribed');
          readsDone++;
          next = settling(readsDone);
          if (next.kind === 'read-again')
            return this.settleActivation(subscriptionId, settleByMs, deliveriesBefore, readsDone);
        }
        const fields = {
          subscriptionId,
          reads: readsDone,
          syncedUntil: ctx.ordering.syncedUntil?.lexical,
        };
        if (next.kind === 'settled')
          ctx.log.info(
            { event: 'subscription.activation_settled', ...fields },
            'subscription.activation_settled',
          );
        else
          ctx.log.warn(
            { event: 'subscription.activation_unproven', ...fields },
            'subscription.activation_unproven',
          );
      }),
    );
  }

  /** A delivery was committed to the inbox. */
  delivered(id: number, body: Buffer, receivedAt: number): void {
    this.deliveries++;
    this.feed.delivered(id, body, receivedAt);
  }

  /** Catch-up to whatever the Change Lists hold now (on the caller's lane). */
  catchUpToNow(
    reason: 'startup' | 'poll' | 'manual' | 'baseline' | 'resubscribed',
  ): Promise<CatchUpOutcome> {
    return catchUpToNow(this.ctx, reason);
  }

  /** Audit against the Resource List and repair; callers run it on the ordering lane. */
  reconcile(reason: 'periodic' | 'manual'): Promise<ReconcileResult> {
    return reconcile(this.ctx, reason);
  }

  /** `audit NAME --repair`: discovery, the stored position, then one reconciliation. */
  async repairOnce(): Promise<ReconcileResult> {
    const { ctx } = this;
    if (!(await this.channel.discover()))
      throw new SubscriberError('RSN_REPAIR_FAILED', `discovery failed for ${this.cfg.name}`);
    const pos = await this.rt.repo.getPosition(ctx.source.id);
    if (pos?.syncedUntil) ctx.ordering = initialOrderingState(parseDateTime(pos.syncedUntil));
    return reconcile(ctx, 'manual');
  }

  /** `sync NAME`: discovery, the stored position (or a baseline), then one catch-up to now. */
  async syncOnce(): Promise<{ syncedUntil?: string; outcome: CatchUpOutcome }> {
    const { ctx } = this;
    if (!(await this.channel.discover()))
      throw new SubscriberError('RSN_SYNC_FAILED', `discovery failed for ${this.cfg.name}`);
    const before = await this.rt.repo.getPosition(ctx.source.id);
    if (!before?.syncedUntil) {
      const at = await takeBaseline(ctx, 'manual');
      if (!at) throw new SubscriberError('RSN_SYNC_FAILED', `baseline failed for ${this.cfg.name}`);
      ctx.ordering = initialOrderingState(at);
    } else {
      ctx.ordering = initialOrderingState(parseDateTime(before.syncedUntil));
      ctx.persisted = { syncedUntil: before.syncedUntil };
    }
    let outcome = await catchUpToNow(ctx, 'manual');
    // A baseline just taken is itself the proof up to its `at` (RC-15).
    if (!before?.syncedUntil && (outcome.result === 'up-to-date' || outcome.result === 'unproven'))
      outcome = { ...outcome, result: 'done', coveredTo: ctx.ordering.syncedUntil?.lexical };
    return {
      ...(ctx.ordering.syncedUntil ? { syncedUntil: ctx.ordering.syncedUntil.lexical } : {}),
      outcome,
    };
  }

  async status(): Promise<SourceStatus> {
    const { ctx } = this;
    const fresh = (await this.rt.repo.getSource(this.cfg.name)) ?? ctx.source;
    const buffered =
      ctx.ordering.buffer.length +
      (ctx.ordering.applying ? 1 : 0) +
      ctx.unfedInbox +
      this.feed.waitingInInbox;
    return sourceStatus(this.rt.repo, fresh, {
      buffered: ctx.ready ? buffered : (await this.rt.repo.counters(ctx.source.id)).openInbox,
      ...(ctx.newestUntil ? { newestUntilMs: ctx.newestUntil.epochMs } : {}),
      ...(ctx.lastError !== undefined ? { lastError: ctx.lastError } : {}),
    });
  }

  /** Resolves once both lanes have nothing left to do (tests drive a manual clock with it). */
  async idle(): Promise<void> {
    for (;;) {
      const main = this.ctx.lane.settled();
      const sub = this.channel.settled();
      await Promise.all([main, sub]);
      await yieldToEventLoop();
      if (main === this.ctx.lane.settled() && sub === this.channel.settled()) return;
    }
  }

  /** Stop timers, let the step in flight finish (bounded), then release the mirror. */
  async stop(timeoutMs: number): Promise<void> {
    this.ctx.timers.close();
    const settle = Promise.all([this.ctx.lane.settled(), this.channel.settled()]);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      settle,
      new Promise<void>((r) => {
        timer = setTimeout(r, timeoutMs);
      }),
    ]);
    if (timer) clearTimeout(timer);
    await this.ctx.mirror.close();
    await this.hooks?.drain(5_000);
  }
}
