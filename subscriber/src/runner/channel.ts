// The Source's notification channel over time: discovery (stored, and followed when it changes),
// subscription upkeep on its own lane (hub round trips never hold up applying), and polling mode
// while the Source advertises no channel. WS-3: discovery runs again before each lease renewal and,
// in polling mode, every few polls; a dropped channel moves the Source to polling, a restored one
// back to push (one log event and one metric each).
import { describeError } from '@rsnotify/shared';
import { discoverSource, type Discovery } from '../discovery/index.js';
import type { SourceRecord } from '../store/index.js';
import { retryDelayMs, type ChannelTarget } from '../subscription/index.js';
import {
  channelChange,
  rediscoverBeforeRenewal,
  rediscoveryDue,
  type ChannelChange,
} from './channel-policy.js';
import { Lane, type RunnerContext } from './context.js';
import { catchUpToNow } from './position.js';
import { subscriptionPortFrom, type SubscriptionPort } from './runtime.js';

/** The channel named in the config (a hub's bridge) wins over what the Source advertises. */
function withConfiguredChannel(d: Discovery, hub?: string, topic?: string): Discovery {
  if (!hub || !topic) return d;
  return {
    ...d,
    channel: {
      advertisedTopic: topic,
      advertisedHubs: [hub],
      topic,
      hub,
      hubs: [hub],
      via: 'configured',
    },
    mode: 'push',
  };
}

export class ChannelUpkeep {
  target?: ChannelTarget;
  discoveredAt = 0;
  private discoveryFailures = 0;
  private readonly subLane: Lane;
  private readonly subscriptions?: SubscriptionPort;

  constructor(
    private readonly ctx: RunnerContext,
    private readonly withSubscription: boolean,
  ) {
    this.subLane = new Lane(ctx.log, () => ctx.closed, 'subscription.error');
    const rt = ctx.rt;
    this.subscriptions =
      rt.subscriptions ?? (rt.subDeps ? subscriptionPortFrom(rt.subDeps) : undefined);
  }

  /** Runs discovery and stores its result; falls back to the stored result when the Source is down. */
  async discover(): Promise<boolean> {
    const { ctx } = this;
    let d: Discovery;
    try {
      d = await discoverSource(ctx.cfg.url, ctx.rt.fetcher);
    } catch (err) {
      const e = describeError(err);
      ctx.log.warn(
        { event: 'discovery.failed', url: ctx.cfg.url, code: e.code, error: e.message },
        'discovery.failed',
      );
      await ctx.setError(`discovery failed: ${e.message}`);
      const s = ctx.source;
      if (s.capabilityListUrl && s.mode !== 'unknown') {
        this.target =
          s.mode === 'push' && s.hub && s.topic ? { hub: s.hub, topic: s.topic } : undefined;
        return true;
      }
      return false;
    }
    this.discoveredAt = ctx.now();
    d = withConfiguredChannel(d, ctx.cfg.hub, ctx.cfg.topic);
    const patch = {
      capabilityListUrl: d.capabilityListUrl,
      resourceListUrl: d.resourceListUrl,
      changeListUrl: d.changeListUrl,
      topic: d.channel?.topic,
      hub: d.channel?.hub,
      mode: d.mode,
      discoveryRoute: d.route,
      discoveredAt: this.discoveredAt,
    } as const;
    const before = ctx.source;
    const change = channelChange(before, patch);
    await ctx.rt.repo.updateSource(before.id, patch);
    ctx.source = { ...before, ...patch } as SourceRecord;
    this.target = d.channel ? { hub: d.channel.hub, topic: d.channel.topic } : undefined;
    ctx.log.info(
      {
        event: 'discovery.completed',
        route: d.route,
        mode: d.mode,
        capabilityList: d.capabilityListUrl,
        topic: d.channel?.topic,
        hub: d.channel?.hub,
        changed: change.kind !== 'unchanged' && change.kind !== 'first',
      },
      'discovery.completed',
    );
    if (this.withSubscription) this.followChange(change, before, d);
    return true;
  }

  /** Daemon start: discovery (retried with backoff while the Source is unreachable). */
  async discoverWithRetry(then: () => Promise<void>): Promise<void> {
    const { ctx } = this;
    if (!(await this.discover())) {
      const delay = retryDelayMs(++this.discoveryFailures, ctx.rt.leasePolicy, ctx.rt.random);
      ctx.timers.later('discover', delay, () => ctx.enqueue(() => this.discoverWithRetry(then)));
      return;
    }
    this.discoveryFailures = 0;
    await then();
  }

  private followChange(change: ChannelChange, before: SourceRecord, d: Discovery): void {
    const { ctx } = this;
    if (change.kind === 'dropped') {
      const detail = d.steps[d.steps.length - 1]?.note;
      ctx.rt.metrics.channelChanges.inc({ source: ctx.cfg.name, change: 'dropped' });
      ctx.log.warn(
        {
          event: 'channel.dropped',
          reason: change.reason,
          detail,
          hub: before.hub,
          topic: before.topic,
          mode: 'poll',
        },
        'channel.dropped',
      );
      this.reconcileSubscription(); // unsubscribes what is left (channel-removed)
      this.schedulePoll(0); // notifications may have stopped before the drop was seen
    } else if (change.kind === 'restored') {
      ctx.rt.metrics.channelChanges.inc({ source: ctx.cfg.name, change: 'restored' });
      ctx.log.info(
        {
          event: 'channel.restored',
          hub: this.target?.hub,
          topic: this.target?.topic,
          mode: 'push',
        },
        'channel.restored',
      );
      ctx.timers.cancel('poll');
      this.reconcileSubscription(); // subscribes; the verification triggers a catch-up (M-7)
    } else if (change.kind === 'moved') {
      ctx.rt.metrics.channelChanges.inc({ source: ctx.cfg.name, change: 'moved' });
      ctx.log.info(
        { event: 'channel.moved', hub: this.target?.hub, topic: this.target?.topic },
        'channel.moved',
      );
    }
  }

  // ---- subscription upkeep

  reconcileSubscription(): void {
    if (!this.withSubscription || !this.subscriptions || this.ctx.closed) return;
    this.subLane.enqueue(() =>
      this.reconcileOnce().catch((err: unknown) => {
        this.ctx.timers.later('subscription', 5_000, () => this.reconcileSubscription());
        throw err;
      }),
    );
  }

  private async reconcileOnce(): Promise<void> {
    const { ctx } = this;
    const port = this.subscriptions!;
    for (let round = 0; round < 4 && !ctx.closed; round++) {
      const fresh = await ctx.rt.repo.getSource(ctx.cfg.name);
      const disabled = fresh?.subscriptionDisabled ?? false;
      let plan = await port.plan(ctx.source.id, this.target, disabled);
      if (rediscoverBeforeRenewal(plan.actions, ctx.now(), this.discoveredAt)) {
        // WS-3: re-run discovery before each renewal so a moved or dropped channel takes effect.
        await this.discover();
        plan = await port.plan(ctx.source.id, this.target, disabled);
      }
      if (plan.denied)
        await ctx.setError(
          `subscription denied by hub${plan.denied.deniedReason ? `: ${plan.denied.deniedReason}` : ''}`,
        );
      if (plan.actions.length === 0) {
        if (plan.wakeAt !== undefined)
          ctx.timers.later('subscription', plan.wakeAt - ctx.now(), () =>
            this.reconcileSubscription(),
          );
        return;
      }
      await port.execute(ctx.source.id, this.target, plan.actions, ctx.cfg.leaseSeconds);
    }
    // Something is still to do (a retry will be due): look again shortly.
    ctx.timers.later('subscription', 1_000, () => this.reconcileSubscription());
  }

  /** Settles the subscription lane (tests, stop). */
  settled(): Promise<void> {
    return this.subLane.settled();
  }

  // ---- polling mode (no channel)

  schedulePoll(delayMs: number): void {
    const { ctx } = this;
    ctx.timers.later('poll', delayMs, () =>
      ctx.enqueue(async () => {
        if (ctx.source.mode !== 'poll') return; // the channel came back
        if (
          this.withSubscription &&
          rediscoveryDue(ctx.now(), this.discoveredAt, ctx.cfg.pollInterval)
        ) {
          await this.discover();
          if (ctx.source.mode !== 'poll') return;
        }
        if (ctx.ready) await catchUpToNow(ctx, 'poll');
        this.schedulePoll(ctx.cfg.pollInterval);
      }),
    );
  }
}
