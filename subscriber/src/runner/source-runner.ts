// One source inside the daemon: discovery, subscription upkeep, and the ordering lane that carries
// out the ordering engine's effects (apply a notification, catch up from the Change Lists, baseline
// from the Resource List), persisting the position after each transition so a restart resumes.
import type { Agent } from 'undici';
import {
  compareDateTime,
  describeError,
  entryToChange,
  parseChangeNotification,
  parseDateTime,
  type Change,
  type ChangeNotification,
  type DateTime,
} from '@rsnotify/shared';
import { reconcileMirror, type ReconcileResult } from '../audit/index.js';
import { runBaseline } from '../baseline/index.js';
import {
  CatchUpError,
  classifyFailure,
  collectChanges,
  EntrySelector,
  holdsPosition,
  isOutdatable,
  type HistoryGoneReason,
} from '../catchup/index.js';
import type { ResolvedConfig, SourceConfig } from '../config.js';
import { discoverSource, type Discovery, type PageFetcher } from '../discovery/index.js';
import { createHookRunner, type HookRunner } from '../hooks/index.js';
import {
  createMirror,
  migrateMirrorLayout,
  type ApplyResult,
  type HttpGetter,
  type Mirror,
} from '../mirror/index.js';
import type { Logger, SubscriberMetrics } from '../observability/index.js';
import {
  applied,
  catchUpFailed,
  caughtUp,
  initialOrderingState,
  nextWakeAt,
  rebaselined,
  receive,
  tick,
  type OrderingEffect,
  type OrderingOptions,
  type OrderingState,
  type Transition,
} from '../ordering/index.js';
import { reconciliationRecord, sourceStatus, type SourceStatus } from '../status/index.js';
import {
  createResourceStateStore,
  type EventRecord,
  type SourceRecord,
  type SqliteSubscriberStore,
  type SubscriptionRecord,
} from '../store/index.js';
import {
  executeActions,
  planFor,
  retryDelayMs,
  type ChannelTarget,
  type LeasePolicy,
  type SubscriptionDeps,
} from '../subscription/index.js';
import { SubscriberError } from '../errors/index.js';

const MAX_TIMER_MS = 24 * 3_600_000;

/** The failure policy (catchup/coverage.ts) applied to one apply result. */
const failureKind = (r: ApplyResult) => (r.error ? classifyFailure(r.error) : 'blocking');
const isRefused = (r: ApplyResult): boolean =>
  r.outcome === 'failed' && failureKind(r) === 'refused';
/** A failed change that a later change of the same URI explains (hash/length mismatch, 404/410). */
const isOutdated = (r: ApplyResult): boolean =>
  r.outcome === 'failed' && isOutdatable(failureKind(r));

/** What one catch-up to the present proved and applied (`sync` reports it and exits on it). */
export interface CatchUpOutcome {
  /** up-to-date: the lists reach the position but prove nothing after it yet (nothing new). */
  readonly result: 'done' | 'up-to-date' | 'unproven' | 'failed' | 'history-gone' | 'skipped';
  readonly changes?: number;
  readonly failed?: number;
  readonly coveredTo?: string;
  readonly historyGone?: HistoryGoneReason;
  /** After history-gone: whether the re-baseline from the Resource List succeeded. */
  readonly rebaselined?: boolean;
  readonly error?: string;
}

export interface Runtime {
  readonly cfg: ResolvedConfig;
  readonly repo: SqliteSubscriberStore;
  readonly logger: Logger;
  readonly metrics: SubscriberMetrics;
  readonly http: HttpGetter;
  readonly fetcher: PageFetcher;
  readonly hubAgent: Agent;
  readonly clock: () => number;
  readonly random: () => number;
  readonly leasePolicy: LeasePolicy;
  readonly subDeps?: SubscriptionDeps;
}

function lexical(d: DateTime | undefined): string | undefined {
  return d?.lexical;
}

/** One source: discovery, subscription upkeep, and the ordering lane that applies notifications. */
export class SourceRunner {
  source!: SourceRecord;
  private target?: ChannelTarget;
  private mirror!: Mirror;
  private hooks?: HookRunner;
  private ordering: OrderingState = initialOrderingState();
  private readonly opts: OrderingOptions;
  private lane: Promise<void> = Promise.resolve();
  private subLane: Promise<void> = Promise.resolve();
  private ready = false;
  private closed = false;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly parsed = new Map<number, ChangeNotification>();
  private newestUntil?: DateTime;
  private lastError?: string;
  private persisted: { syncedUntil?: string; gapOpenedAt?: number } = {};
  private applyFailures = 0;
  private lastAppliedAt?: number;
  private persistedAppliedAt?: number;
  private establishFailures = 0;
  private discoveredAt = 0;
  private discoveryFailures = 0;
  private readonly log: Logger;

  constructor(
    private readonly rt: Runtime,
    readonly cfg: SourceConfig,
    private readonly withSubscription: boolean,
  ) {
    this.opts = { gapTimeoutMs: cfg.gapTimeout };
    this.log = rt.logger.child({ source: cfg.name });
  }

  get sourceId(): number {
    return this.source.id;
  }

  async init(): Promise<void> {
    this.source = await this.rt.repo.ensureSource(this.cfg.name, this.cfg.url);
    if (this.withSubscription && this.source.subscriptionDisabled) {
      // `unsubscribe NAME` lasts until the daemon's next start.
      await this.rt.repo.updateSource(this.source.id, { subscriptionDisabled: false });
      this.source = { ...this.source, subscriptionDisabled: false };
    }
    if (this.cfg.hook) {
      this.hooks = createHookRunner(this.cfg.hook, {
        logger: this.log,
        dispatcher: this.rt.hubAgent,
        outbound: { allowPrivateNetworks: this.rt.cfg.allowPrivateNetworks },
      });
    }
    this.mirror = createMirror({
      mirrorDir: this.cfg.mirrorDir,
      http: this.rt.http,
      state: createResourceStateStore(this.rt.repo, this.source.id),
      perHostConcurrency: this.cfg.fetchConcurrencyPerHost,
      clock: this.rt.clock,
      // Hooks fire for every file written or removed, the baseline's included, once it is on disk.
      onApplied: (r) => {
        if (this.hooks && (r.outcome === 'written' || r.outcome === 'deleted')) {
          this.hooks.notify({
            source: this.cfg.name,
            uri: r.uri,
            change: r.change,
            ...(r.path ? { path: r.path } : {}),
            ...(r.time ? { time: r.time.lexical } : {}),
          });
        }
      },
    });
    await this.migrateLayout();
  }

  /**
   * Moves files an older mapping wrote to their current names (path.ts). A file that cannot be
   * moved makes the next start re-baseline (position cleared) rather than leave a hole.
   */
  async migrateLayout(): Promise<void> {
    const { repo } = this.rt;
    const m = await migrateMirrorLayout(
      this.cfg.mirrorDir,
      await repo.listResourcePaths(this.source.id),
      (uri, path) => repo.setResourcePath(this.source.id, uri, path),
    );
    if (m.moved > 0)
      this.log.info(
        { event: 'mirror.layout_migrated', moved: m.moved, failed: m.failed.length },
        'mirror.layout_migrated',
      );
    if (m.failed.length === 0) return;
    this.log.error(
      {
        event: 'mirror.layout_migration_failed',
        failed: m.failed.length,
        uri: m.failed[0]!.uri,
        error: m.failed[0]!.error,
      },
      'mirror.layout_migration_failed',
    );
    await repo.savePosition(this.source.id, { syncedUntil: undefined } as { syncedUntil?: string });
  }

  /** Daemon start: discovery, subscription, position, then the inbox. */
  start(): void {
    this.enqueue(async () => {
      const ok = await this.discover();
      if (!ok) {
        this.later(
          'discover',
          retryDelayMs(++this.discoveryFailures, this.rt.leasePolicy, this.rt.random),
          () => this.start(),
        );
        return;
      }
      this.discoveryFailures = 0;
      // Subscribe before the baseline so notifications published meanwhile wait in the inbox.
      if (this.withSubscription) this.reconcileSubscription();
      await this.establishPosition();
      if (this.source.mode === 'poll') this.schedulePoll(0);
      this.scheduleReconcile();
    });
  }

  // ---- discovery

  /** Runs discovery and stores its result; falls back to the stored result when the Source is down. */
  async discover(): Promise<boolean> {
    let d: Discovery;
    try {
      d = await discoverSource(this.cfg.url, this.rt.fetcher);
    } catch (err) {
      const e = describeError(err);
      this.log.warn(
        { event: 'discovery.failed', url: this.cfg.url, code: e.code, error: e.message },
        'discovery.failed',
      );
      await this.setError(`discovery failed: ${e.message}`);
      if (this.source.capabilityListUrl && this.source.mode !== 'unknown') {
        this.target =
          this.source.mode === 'push' && this.source.hub && this.source.topic
            ? { hub: this.source.hub, topic: this.source.topic }
            : undefined;
        return true;
      }
      return false;
    }
    this.discoveredAt = this.rt.clock();
    // A channel named in the config (a hub's bridge) wins over what the Source advertises.
    if (this.cfg.hub && this.cfg.topic)
      d = {
        ...d,
        channel: {
          advertisedTopic: this.cfg.topic,
          advertisedHubs: [this.cfg.hub],
          topic: this.cfg.topic,
          hub: this.cfg.hub,
          hubs: [this.cfg.hub],
          via: 'configured',
        },
        mode: 'push',
      };
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
    const changed =
      this.source.topic !== patch.topic ||
      this.source.hub !== patch.hub ||
      this.source.mode !== patch.mode;
    await this.rt.repo.updateSource(this.source.id, patch);
    this.source = { ...this.source, ...patch } as SourceRecord;
    this.target = d.channel ? { hub: d.channel.hub, topic: d.channel.topic } : undefined;
    this.log.info(
      {
        event: 'discovery.completed',
        route: d.route,
        mode: d.mode,
        capabilityList: d.capabilityListUrl,
        topic: d.channel?.topic,
        hub: d.channel?.hub,
        changed,
      },
      'discovery.completed',
    );
    return true;
  }

  // ---- subscription upkeep (its own lane: hub round trips never hold up applying)

  reconcileSubscription(): void {
    if (!this.withSubscription || this.closed) return;
    this.subLane = this.subLane
      .then(() => this.reconcileOnce())
      .catch((err) => {
        this.log.error(
          { event: 'subscription.error', ...describeError(err) },
          'subscription.error',
        );
        this.later('subscription', 5_000, () => this.reconcileSubscription());
      });
  }

  private async reconcileOnce(): Promise<void> {
    const deps = this.rt.subDeps!;
    for (let round = 0; round < 4 && !this.closed; round++) {
      const fresh = await this.rt.repo.getSource(this.cfg.name);
      const disabled = fresh?.subscriptionDisabled ?? false;
      let plan = await planFor(deps, this.source.id, this.target, disabled);
      const sub = plan.actions.find((a) => a.kind === 'subscribe');
      if (sub && sub.reason !== 'initial' && this.rt.clock() - this.discoveredAt > 5_000) {
        // WS-3: re-run discovery before each renewal so a moved topic or hub takes effect.
        await this.discover();
        plan = await planFor(deps, this.source.id, this.target, disabled);
      }
      if (plan.denied)
        await this.setError(
          `subscription denied by hub${plan.denied.deniedReason ? `: ${plan.denied.deniedReason}` : ''}`,
        );
      if (plan.actions.length === 0) {
        if (plan.wakeAt !== undefined)
          this.later('subscription', plan.wakeAt - this.rt.clock(), () =>
            this.reconcileSubscription(),
          );
        return;
      }
      await executeActions(deps, this.source.id, this.target, plan.actions, this.cfg.leaseSeconds);
    }
    // Something is still to do (a retry will be due): look again shortly.
    this.later('subscription', 1_000, () => this.reconcileSubscription());
  }

  /** The intake saw a verification for one of our subscriptions. */
  subscriptionChanged(rec: SubscriptionRecord): void {
    this.reconcileSubscription();
    // M-7: after a lapse (expiry, denial, downtime) notifications may have been missed.
    if (rec.state === 'active' && rec.renewsId === undefined)
      this.enqueue(() =>
        this.ready ? this.catchUpToNow('resubscribed').then(() => undefined) : Promise.resolve(),
      );
  }

  // ---- the ordering lane

  private enqueue(fn: () => Promise<void>): void {
    this.lane = this.lane
      .then(() => (this.closed ? undefined : fn()))
      .catch((err) => {
        const e = describeError(err);
        this.log.error({ event: 'runner.error', code: e.code, error: e.message }, 'runner.error');
      });
  }

  private later(name: string, delayMs: number, fn: () => void): void {
    if (this.closed) return;
    const existing = this.timers.get(name);
    if (existing) clearTimeout(existing);
    const t = setTimeout(
      () => {
        this.timers.delete(name);
        if (!this.closed) fn();
      },
      Math.min(MAX_TIMER_MS, Math.max(0, delayMs)),
    );
    this.timers.set(name, t);
  }

  /** A delivery was committed to the inbox. */
  delivered(id: number, body: Buffer, receivedAt: number): void {
    this.enqueue(async () => {
      if (!this.ready) return; // establishPosition() reads the inbox when it is done
      await this.receiveRow(id, body, receivedAt);
    });
  }

  private async establishPosition(): Promise<void> {
    const { repo } = this.rt;
    const pos = await repo.getPosition(this.source.id);
    if (pos?.syncedUntil) {
      this.ordering = initialOrderingState(parseDateTime(pos.syncedUntil));
      this.persisted = {
        syncedUntil: pos.syncedUntil,
        ...(pos.gapOpenedAt !== undefined ? { gapOpenedAt: pos.gapOpenedAt } : {}),
      };
      this.log.info(
        { event: 'position.resumed', syncedUntil: pos.syncedUntil },
        'position.resumed',
      );
      // M-7: whatever was published while we were down comes from the Change Lists.
      await this.catchUpToNow('startup');
    } else if (this.cfg.baseline === 'resourcelist' || this.source.mode === 'poll') {
      const at = await this.baseline('initial');
      if (!at) {
        this.later(
          'establish',
          retryDelayMs(++this.establishFailures, this.rt.leasePolicy, this.rt.random),
          () => this.enqueue(() => this.establishPosition()),
        );
        return;
      }
      await this.process(rebaselined(this.ordering, at, this.rt.clock(), this.opts));
      await this.catchUpToNow('baseline');
    } else {
      this.ordering = initialOrderingState();
    }
    this.establishFailures = 0;
    this.ready = true;
    for (const row of await repo.listOpenInbox(this.source.id)) {
      if (this.closed) return;
      await this.receiveRow(row.id, row.body, row.receivedAt);
    }
  }

  private async receiveRow(id: number, body: Buffer, receivedAt: number): Promise<void> {
    let n: ChangeNotification;
    try {
      n = parseChangeNotification(body);
    } catch (err) {
      const e = describeError(err);
      // RN-14/RT-17: an invalid payload is recorded and dropped; it cannot move the position.
      await this.rt.repo.updateInbox(id, {
        state: 'invalid',
        error: `${e.code ?? ''} ${e.message}`.trim().slice(0, 500),
      });
      this.log.warn(
        { event: 'notification.invalid', inboxId: id, code: e.code, error: e.message },
        'notification.invalid',
      );
      return;
    }
    this.parsed.set(id, n);
    if (!this.newestUntil || compareDateTime(n.until, this.newestUntil) > 0)
      this.newestUntil = n.until;
    this.log.debug(
      {
        event: 'notification.received',
        inboxId: id,
        from: n.from.lexical,
        until: n.until.lexical,
        entries: n.entries.length,
      },
      'notification.received',
    );
    await this.process(
      receive(
        this.ordering,
        { id, from: n.from, until: n.until, receivedAt },
        this.rt.clock(),
        this.opts,
      ),
    );
  }

  /** Adopts a transition, persists it, and carries out its effects (and theirs) in order. */
  private async process(t: Transition): Promise<void> {
    this.ordering = t.state;
    await this.persistOrdering();
    const queue: OrderingEffect[] = [...t.effects];
    while (queue.length > 0 && !this.closed) {
      const effect = queue.shift()!;
      const next = await this.execute(effect);
      if (next) {
        this.ordering = next.state;
        await this.persistOrdering();
        queue.push(...next.effects);
      }
    }
    this.scheduleTick();
    this.updateGauges();
  }

  private async persistOrdering(): Promise<void> {
    const syncedUntil = lexical(this.ordering.syncedUntil);
    const gapOpenedAt = this.ordering.gapOpenedAt;
    if (
      syncedUntil === this.persisted.syncedUntil &&
      gapOpenedAt === this.persisted.gapOpenedAt &&
      this.lastAppliedAt === this.persistedAppliedAt
    )
      return;
    await this.rt.repo.savePosition(this.source.id, {
      syncedUntil,
      gapOpenedAt,
      ...(this.lastAppliedAt !== undefined ? { lastAppliedAt: this.lastAppliedAt } : {}),
    });
    this.persisted = {
      ...(syncedUntil !== undefined ? { syncedUntil } : {}),
      ...(gapOpenedAt !== undefined ? { gapOpenedAt } : {}),
    };
    this.persistedAppliedAt = this.lastAppliedAt;
  }

  private scheduleTick(): void {
    const at = nextWakeAt(this.ordering, this.opts);
    if (at === undefined) return;
    this.later('tick', at - this.rt.clock(), () =>
      this.enqueue(() => this.process(tick(this.ordering, this.rt.clock(), this.opts))),
    );
  }

  private updateGauges(): void {
    const name = this.cfg.name;
    this.rt.metrics.buffered.set({ source: name }, this.ordering.buffer.length);
    const p = this.ordering.syncedUntil;
    this.rt.metrics.lagSeconds.set(
      { source: name },
      p && this.newestUntil ? Math.max(0, this.newestUntil.epochMs - p.epochMs) / 1000 : 0,
    );
  }

  private async execute(effect: OrderingEffect): Promise<Transition | undefined> {
    const { metrics } = this.rt;
    switch (effect.kind) {
      case 'supersede':
        await this.finishRow(effect.id, 'superseded');
        metrics.notificationsSuperseded.inc({ source: this.cfg.name, reason: effect.reason });
        this.log.debug(
          { event: 'notification.superseded', inboxId: effect.id, reason: effect.reason },
          'notification.superseded',
        );
        return undefined;
      case 'gap-detected':
        metrics.gaps.inc({ source: this.cfg.name });
        await this.rt.repo.recordGap(this.source.id, {
          from: effect.from.lexical,
          to: effect.to.lexical,
          detectedAt: this.rt.clock(),
        });
        this.log.info(
          { event: 'ordering.gap_detected', from: effect.from.lexical, to: effect.to.lexical },
          'ordering.gap_detected',
        );
        return undefined;
      case 'apply':
        return this.applyNotification(effect);
      case 'catch-up':
        return this.catchUpGap(effect);
    }
  }

  /** One write per notification at its end: its state plus the interval it covered (for status). */
  private async finishRow(id: number, state: 'applied' | 'superseded'): Promise<void> {
    const n = this.parsed.get(id);
    this.parsed.delete(id);
    await this.rt.repo.updateInbox(id, {
      state,
      ...(n ? { from: n.from.lexical, until: n.until.lexical } : {}),
    });
  }

  private async notificationBody(id: number): Promise<ChangeNotification | undefined> {
    const cached = this.parsed.get(id);
    if (cached) return cached;
    const row = await this.rt.repo.getInbox(id);
    if (!row) return undefined;
    try {
      return parseChangeNotification(row.body);
    } catch {
      return undefined;
    }
  }

  private async applyNotification(
    effect: Extract<OrderingEffect, { kind: 'apply' }>,
  ): Promise<Transition | undefined> {
    const n = await this.notificationBody(effect.id);
    const changes: Change[] = [];
    // RC-23: after an overlap only the entries past the position are new, by document order.
    const selector =
      effect.after && n
        ? new EntrySelector(effect.after, undefined, compareDateTime(n.from, effect.after) >= 0)
        : undefined;
    for (const entry of n?.entries ?? []) {
      const c = entryToChange(entry);
      if (!c) continue;
      if (selector) changes.push(...selector.push(c));
      else changes.push(c);
    }
    if (selector) changes.push(...selector.end());
    const results = await this.supersedeOutdated(await this.mirror.apply(changes), effect.until);
    const failed = await this.recordResults(results);
    if (failed > 0) {
      this.applyFailures++;
      const delay = retryDelayMs(
        this.applyFailures,
        { retryInitialMs: 1_000, retryMaxMs: 60_000 },
        this.rt.random,
      );
      this.log.warn(
        { event: 'apply.failed', inboxId: effect.id, failed, retryInMs: delay },
        'apply.failed',
      );
      // Promise 3: the position stays until every change of the interval is really applied.
      this.later('apply-retry', delay, () =>
        this.enqueue(() => this.process({ state: this.ordering, effects: [effect] })),
      );
      return undefined;
    }
    if (this.applyFailures > 0) await this.clearError();
    this.applyFailures = 0;
    await this.finishRow(effect.id, 'applied');
    this.rt.metrics.notificationsApplied.inc({ source: this.cfg.name });
    this.log.debug(
      {
        event: 'notification.applied',
        inboxId: effect.id,
        until: effect.until.lexical,
        changes: changes.length,
      },
      'notification.applied',
    );
    return applied(this.ordering, effect.id, this.rt.clock(), this.opts);
  }

  /**
   * A fetched resource that does not match the hash/length its change announced (or is gone) has
   * usually changed again since (the Source serves only its current bytes). That is no failure when a later change of
   * the same URI is known: in a buffered notification, or in the Change Lists after `after`. Such
   * results become 'skipped' (superseded); the later change brings the current bytes. Without a later
   * change the mismatch stands (never kept, promise 3).
   */
  private async supersedeOutdated(
    results: ApplyResult[],
    after: DateTime | undefined,
  ): Promise<ApplyResult[]> {
    // Also a 404/410: the resource was deleted after this change was announced (its delete follows).
    const isMismatch = isOutdated;
    const pending = new Map<string, ApplyResult>();
    for (const r of results) if (isMismatch(r)) pending.set(r.uri, r);
    if (pending.size === 0) return results;
    const later = new Set<string>();
    for (const b of this.ordering.buffer) {
      const n = await this.notificationBody(b.id);
      for (const e of n?.entries ?? []) if (pending.has(e.loc)) later.add(e.loc);
    }
    if (later.size < pending.size && this.source.changeListUrl && after) {
      try {
        const c = await collectChanges(
          { changeListUrl: this.source.changeListUrl },
          after,
          undefined,
          this.rt.http,
        );
        for (const ch of c.changes) {
          const failed = pending.get(ch.uri);
          if (!failed) continue;
          if (!failed.time || !ch.time || compareDateTime(ch.time, failed.time) > 0)
            later.add(ch.uri);
        }
      } catch {
        // The lists cannot tell now: the mismatch stands and the step is retried.
      }
    }
    if (later.size === 0) return results;
    this.log.debug({ event: 'mirror.outdated_change', uris: later.size }, 'mirror.outdated_change');
    return results.map((r) =>
      isMismatch(r) && later.has(r.uri)
        ? {
            uri: r.uri,
            change: r.change,
            outcome: 'skipped',
            skipped: 'superseded',
            ...(r.time ? { time: r.time } : {}),
          }
        : r,
    );
  }

  /**
   * Records each outcome (events table, metrics, hooks); returns how many failed in a way that must
   * hold the position (promise 3). A URI refused by the path mapping (RSN_PATH_ESCAPE, promise 4) is
   * recorded and reported but cannot block: no retry will ever make it writable.
   */
  private async recordResults(results: readonly ApplyResult[]): Promise<number> {
    const now = this.rt.clock();
    const events: EventRecord[] = [];
    let failed = 0;
    let firstError: string | undefined;
    for (const r of results) {
      this.rt.metrics.changesApplied.inc({ source: this.cfg.name, outcome: r.outcome });
      if (r.outcome === 'skipped') continue;
      events.push({
        at: now,
        uri: r.uri,
        change: r.change,
        outcome: r.outcome,
        ...(r.error ? { errorCode: r.error.code, error: r.error.message.slice(0, 500) } : {}),
      });
      if (r.outcome === 'failed') {
        const kind = failureKind(r);
        const refused = !holdsPosition(kind);
        if (!refused) failed++;
        firstError ??= `${r.error?.code ?? 'failed'}: ${r.uri}: ${r.error?.message ?? ''}`;
        const event = refused
          ? kind === 'refused'
            ? 'mirror.path_refused'
            : 'mirror.resource_gone'
          : r.error?.code === 'RSN_HASH_MISMATCH'
            ? 'mirror.hash_mismatch'
            : r.error?.code === 'RSN_LENGTH_MISMATCH'
              ? 'mirror.length_mismatch'
              : 'mirror.apply_failed';
        this.log.warn(
          { event, uri: r.uri, change: r.change, code: r.error?.code, error: r.error?.message },
          event,
        );
      }
    }
    await this.rt.repo.addEvents(this.source.id, events);
    if (events.length > failed) this.lastAppliedAt = now; // persisted with the next position write
    if (firstError) await this.setError(firstError);
    return failed;
  }

  private async catchUpGap(
    effect: Extract<OrderingEffect, { kind: 'catch-up' }>,
  ): Promise<Transition | undefined> {
    const { repo, clock } = this.rt;
    const id = await repo.startCatchUp(
      this.source.id,
      'gap',
      effect.from.lexical,
      effect.to.lexical,
      clock(),
    );
    this.log.info(
      { event: 'catchup.started', from: effect.from.lexical, to: effect.to.lexical },
      'catchup.started',
    );
    try {
      if (!this.source.changeListUrl)
        throw new CatchUpError(
          'RSN_CATCHUP_NO_CHANGELIST',
          'the Capability List has no Change List',
          {},
        );
      const r = await collectChanges(
        { changeListUrl: this.source.changeListUrl },
        effect.from,
        effect.to,
        this.rt.http,
      );
      if (r.historyGone) {
        await repo.finishCatchUp(id, {
          state: 'history-gone',
          lastError: r.historyGoneReason,
          finishedAt: clock(),
        });
        this.rt.metrics.catchUps.inc({ source: this.cfg.name, result: 'history-gone' });
        this.log.warn(
          { event: 'catchup.history_gone', from: effect.from.lexical, reason: r.historyGoneReason },
          'catchup.history_gone',
        );
        const at = await this.baseline('history-gone');
        return at
          ? rebaselined(this.ordering, at, clock(), this.opts)
          : catchUpFailed(this.ordering, clock(), this.opts);
      }
      const results = await this.supersedeOutdated(
        await this.mirror.apply(r.changes),
        r.coveredTo ?? effect.to,
      );
      const failed = await this.recordResults(results);
      if (failed > 0 || !r.coveredTo) {
        const why =
          failed > 0 ? `${failed} change(s) failed` : 'the Change Lists do not cover the gap yet';
        await repo.finishCatchUp(id, {
          state: failed > 0 ? 'failed' : 'partial',
          changes: r.changes.length,
          lastError: why,
          finishedAt: clock(),
        });
        this.rt.metrics.catchUps.inc({
          source: this.cfg.name,
          result: failed > 0 ? 'failed' : 'partial',
        });
        this.log.warn(
          { event: 'catchup.incomplete', from: effect.from.lexical, to: effect.to.lexical, why },
          'catchup.incomplete',
        );
        return catchUpFailed(this.ordering, clock(), this.opts);
      }
      const complete = compareDateTime(r.coveredTo, effect.to) >= 0;
      await repo.finishCatchUp(id, {
        state: complete ? 'done' : 'partial',
        changes: r.changes.length,
        finishedAt: clock(),
        to: r.coveredTo.lexical,
      });
      this.rt.metrics.catchUps.inc({
        source: this.cfg.name,
        result: complete ? 'done' : 'partial',
      });
      this.log.info(
        {
          event: complete ? 'catchup.completed' : 'catchup.partial',
          from: effect.from.lexical,
          to: effect.to.lexical,
          coveredTo: r.coveredTo.lexical,
          changes: r.changes.length,
        },
        complete ? 'catchup.completed' : 'catchup.partial',
      );
      if (complete) await this.clearError();
      return caughtUp(this.ordering, r.coveredTo, clock(), this.opts);
    } catch (err) {
      const e = describeError(err);
      await repo.finishCatchUp(id, {
        state: 'failed',
        lastError: e.message.slice(0, 500),
        finishedAt: clock(),
      });
      this.rt.metrics.catchUps.inc({ source: this.cfg.name, result: 'failed' });
      this.log.warn(
        {
          event: 'catchup.failed',
          from: effect.from.lexical,
          to: effect.to.lexical,
          code: e.code,
          error: e.message,
        },
        'catchup.failed',
      );
      await this.setError(`catch-up failed: ${e.message}`);
      return catchUpFailed(this.ordering, clock(), this.opts);
    }
  }

  /**
   * Catch-up to whatever the Change Lists hold now (startup, polling, `sync`, after a lapse): only
   * when no step is in flight; the position moves only over what the lists prove (RC-21..RC-24).
   * Every outcome is counted once, in the catch-up table, the metric and the log alike.
   */
  async catchUpToNow(
    reason: 'startup' | 'poll' | 'manual' | 'baseline' | 'resubscribed',
  ): Promise<CatchUpOutcome> {
    const { repo, clock } = this.rt;
    const from = this.ordering.syncedUntil;
    if (!from || this.ordering.applying) return { result: 'skipped' };
    if (!this.source.changeListUrl)
      return { result: 'skipped', error: 'the Capability List has no Change List' };
    const id = await repo.startCatchUp(
      this.source.id,
      reason === 'resubscribed' ? 'startup' : reason,
      from.lexical,
      undefined,
      clock(),
    );
    const count = (result: string): void =>
      this.rt.metrics.catchUps.inc({ source: this.cfg.name, result });
    try {
      const r = await collectChanges(
        { changeListUrl: this.source.changeListUrl },
        from,
        undefined,
        this.rt.http,
      );
      if (r.historyGone) {
        await repo.finishCatchUp(id, {
          state: 'history-gone',
          lastError: r.historyGoneReason,
          finishedAt: clock(),
        });
        count('history-gone');
        this.log.warn(
          { event: 'catchup.history_gone', from: from.lexical, reason, why: r.historyGoneReason },
          'catchup.history_gone',
        );
        const at = await this.baseline('history-gone');
        if (at) await this.process(rebaselined(this.ordering, at, clock(), this.opts));
        return {
          result: 'history-gone',
          ...(r.historyGoneReason ? { historyGone: r.historyGoneReason } : {}),
          rebaselined: at !== undefined,
        };
      }
      const results = await this.supersedeOutdated(await this.mirror.apply(r.changes), r.coveredTo);
      const failed = await this.recordResults(results);
      if (failed === 0 && !r.coveredTo && r.reachesPosition) {
        // Nothing listed after the position (a quiet Source between polls): nothing to prove or move.
        await repo.finishCatchUp(id, {
          state: 'done',
          changes: r.changes.length,
          finishedAt: clock(),
        });
        count('up-to-date');
        this.log.debug(
          { event: 'catchup.up_to_date', reason, from: from.lexical },
          'catchup.up_to_date',
        );
        return { result: 'up-to-date', changes: r.changes.length, failed: 0 };
      }
      if (failed > 0 || !r.coveredTo) {
        const why =
          failed > 0
            ? `${failed} change(s) failed`
            : r.reachesPosition
              ? 'the Change Lists prove nothing after the position yet'
              : 'no Change List proves where it starts';
        await repo.finishCatchUp(id, {
          state: failed > 0 ? 'failed' : 'partial',
          changes: r.changes.length,
          lastError: why,
          finishedAt: clock(),
        });
        count(failed > 0 ? 'failed' : 'partial');
        this.log.warn(
          { event: 'catchup.incomplete', reason, from: from.lexical, why },
          'catchup.incomplete',
        );
        const result = failed > 0 ? 'failed' : r.reachesPosition ? 'up-to-date' : 'unproven';
        return { result, changes: r.changes.length, failed };
      }
      await repo.finishCatchUp(id, {
        state: 'done',
        changes: r.changes.length,
        finishedAt: clock(),
        to: r.coveredTo.lexical,
      });
      count('done');
      this.log.info(
        {
          event: 'catchup.completed',
          reason,
          from: from.lexical,
          coveredTo: r.coveredTo.lexical,
          changes: r.changes.length,
        },
        'catchup.completed',
      );
      if (this.applyFailures === 0) await this.clearError();
      await this.process(caughtUp(this.ordering, r.coveredTo, clock(), this.opts));
      return {
        result: 'done',
        changes: r.changes.length,
        failed: 0,
        coveredTo: r.coveredTo.lexical,
      };
    } catch (err) {
      const e = describeError(err);
      await repo.finishCatchUp(id, {
        state: 'failed',
        lastError: e.message.slice(0, 500),
        finishedAt: clock(),
      });
      count('failed');
      this.log.warn(
        { event: 'catchup.failed', reason, from: from.lexical, code: e.code, error: e.message },
        'catchup.failed',
      );
      await this.setError(`catch-up failed: ${e.message}`);
      return { result: 'failed', error: e.message };
    }
  }

  /** A baseline from the Resource List (RC-14..RC-16); returns its `at`, or undefined if incomplete. */
  private async baseline(
    reason: 'initial' | 'history-gone' | 'manual',
  ): Promise<DateTime | undefined> {
    const { repo, clock } = this.rt;
    if (!this.source.resourceListUrl) {
      await this.setError('baseline impossible: the Capability List has no Resource List');
      this.log.error(
        { event: 'baseline.failed', reason, error: 'no Resource List' },
        'baseline.failed',
      );
      return undefined;
    }
    const id = await repo.startCatchUp(this.source.id, 'baseline', undefined, undefined, clock());
    this.log.info(
      { event: 'baseline.started', reason, resourceList: this.source.resourceListUrl },
      'baseline.started',
    );
    try {
      // previousUris: what the mirror held and the list no longer has was deleted meanwhile.
      const r = await runBaseline(this.source.resourceListUrl, this.rt.http, this.mirror, {
        previousUris: () => repo.listResourceUris(this.source.id),
      });
      const refused = r.failed.filter(isRefused);
      if (refused.length > 0) await this.recordResults(refused);
      const others = r.failed.filter((f) => !isRefused(f));
      const unresolved = others.length > 0 ? await this.resolveBaselineFailures(r.at, others) : [];
      if (unresolved.length > 0) {
        await this.recordResults(unresolved);
        await repo.finishCatchUp(id, {
          state: 'failed',
          changes: r.resources,
          lastError: `${unresolved.length} resource(s) failed`,
          finishedAt: clock(),
        });
        this.log.warn(
          {
            event: 'baseline.incomplete',
            reason,
            failed: unresolved.length,
            resources: r.resources,
          },
          'baseline.incomplete',
        );
        return undefined;
      }
      await repo.finishCatchUp(id, {
        state: 'done',
        changes: r.resources,
        finishedAt: clock(),
        to: r.at.lexical,
      });
      await repo.savePosition(this.source.id, {
        syncedUntil: r.at.lexical,
        baselineAt: r.at.lexical,
        baselineRanAt: clock(),
      });
      this.persisted = { syncedUntil: r.at.lexical };
      this.log.info(
        { event: 'baseline.completed', reason, at: r.at.lexical, resources: r.resources },
        'baseline.completed',
      );
      await this.clearError();
      return r.at;
    } catch (err) {
      const e = describeError(err);
      await repo.finishCatchUp(id, {
        state: 'failed',
        lastError: e.message.slice(0, 500),
        finishedAt: clock(),
      });
      this.log.warn(
        { event: 'baseline.failed', reason, code: e.code, error: e.message },
        'baseline.failed',
      );
      await this.setError(`baseline failed: ${e.message}`);
      return undefined;
    }
  }

  /**
   * RC-15: a resource that changed after the list's `at` no longer matches its listed hash or length
   * (or is gone). Such a failure is no failure if the Change Lists from `at` hold a later change of
   * that URI that applies cleanly. Returns the failures that remain.
   */
  private async resolveBaselineFailures(
    at: DateTime,
    failed: readonly ApplyResult[],
  ): Promise<ApplyResult[]> {
    if (!this.source.changeListUrl || !failed.every(isOutdated)) return [...failed];
    try {
      const c = await collectChanges(
        { changeListUrl: this.source.changeListUrl },
        at,
        undefined,
        this.rt.http,
      );
      if (c.historyGone) return [...failed];
      const results = await this.mirror.apply(c.changes);
      const bad = results.filter((x) => x.outcome === 'failed');
      const fixed = new Set(
        results.filter((x) => x.outcome === 'written' || x.outcome === 'deleted').map((x) => x.uri),
      );
      await this.recordResults(results.filter((x) => x.outcome !== 'failed'));
      const remaining = failed.filter((f) => !fixed.has(f.uri));
      this.log.info(
        {
          event: 'baseline.failures_resolved',
          failed: failed.length,
          resolved: failed.length - remaining.length,
        },
        'baseline.failures_resolved',
      );
      return bad.length > 0
        ? [...remaining, ...bad.filter((b) => !remaining.some((r) => r.uri === b.uri))]
        : remaining;
    } catch {
      return [...failed];
    }
  }

  // ---- polling mode (no channel)

  private schedulePoll(delayMs: number): void {
    this.later('poll', delayMs, () =>
      this.enqueue(async () => {
        if (this.ready) await this.catchUpToNow('poll');
        this.schedulePoll(this.cfg.pollInterval);
      }),
    );
  }

  // ---- reconciliation with the Resource List (audit + repair)

  private scheduleReconcile(): void {
    const every = this.cfg.reconcileInterval;
    if (!every || every <= 0) return;
    this.later('reconcile', every, () =>
      this.enqueue(async () => {
        if (this.ready) await this.reconcile('periodic').catch(() => undefined);
        this.scheduleReconcile();
      }),
    );
  }

  /**
   * Audit against the Resource List and repair through the verified writer; runs on the ordering
   * lane (callers enqueue it) so it never races an apply. One `reconcile.completed` line and one
   * metric per run.
   */
  async reconcile(reason: 'periodic' | 'manual'): Promise<ReconcileResult> {
    const outcome = (o: string): void =>
      this.rt.metrics.reconciles.inc({ source: this.cfg.name, outcome: o });
    try {
      if (!this.source.resourceListUrl) throw new Error('the Capability List has no Resource List');
      const r = await reconcileMirror({
        resourceListUrl: this.source.resourceListUrl,
        mirrorDir: this.cfg.mirrorDir,
        http: this.rt.http,
        mirror: this.mirror,
        knownUris: () => this.rt.repo.listResourceUris(this.source.id),
        lastChangeKey: async (uri) =>
          (await this.rt.repo.getResource(this.source.id, uri))?.lastChangeKey,
      });
      await this.recordResults(r.results.filter((x) => x.outcome !== 'failed' || !isOutdated(x)));
      const result =
        r.failed > 0
          ? 'failed'
          : r.fetched + r.removed > 0
            ? 'repaired'
            : r.report.inSync
              ? 'in-sync'
              : 'source-changing';
      outcome(result);
      await this.rt.repo.recordReconciliation(
        this.source.id,
        reconciliationRecord(reason, this.rt.clock(), result, r),
      );
      const level = r.fetched + r.removed + r.failed > 0 ? 'warn' : 'info';
      this.log[level](
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
      outcome('failed');
      const e = describeError(err);
      await this.rt.repo
        .recordReconciliation(
          this.source.id,
          reconciliationRecord(reason, this.rt.clock(), 'failed', undefined, e.message),
        )
        .catch(() => undefined);
      this.log.warn(
        { event: 'reconcile.failed', reason, code: e.code, error: e.message },
        'reconcile.failed',
      );
      throw err;
    }
  }

  /** `audit NAME --repair`: discovery, the stored position, then one reconciliation. */
  async repairOnce(): Promise<ReconcileResult> {
    if (!(await this.discover())) throw new Error(`discovery failed for ${this.cfg.name}`);
    const pos = await this.rt.repo.getPosition(this.source.id);
    if (pos?.syncedUntil) this.ordering = initialOrderingState(parseDateTime(pos.syncedUntil));
    return this.reconcile('manual');
  }

  // ---- one-shot use (`sync NAME`)

  async syncOnce(): Promise<{ syncedUntil?: string; outcome: CatchUpOutcome }> {
    const ok = await this.discover();
    if (!ok) throw new SubscriberError('RSN_SYNC_FAILED', `discovery failed for ${this.cfg.name}`);
    const before = await this.rt.repo.getPosition(this.source.id);
    if (!before?.syncedUntil) {
      const at = await this.baseline('manual');
      if (!at) throw new SubscriberError('RSN_SYNC_FAILED', `baseline failed for ${this.cfg.name}`);
      this.ordering = initialOrderingState(at);
    } else {
      this.ordering = initialOrderingState(parseDateTime(before.syncedUntil));
      this.persisted = { syncedUntil: before.syncedUntil };
    }
    let outcome = await this.catchUpToNow('manual');
    // A baseline just taken is itself the proof up to its `at` (RC-15).
    if (!before?.syncedUntil && (outcome.result === 'up-to-date' || outcome.result === 'unproven'))
      outcome = { ...outcome, result: 'done', coveredTo: this.ordering.syncedUntil?.lexical };
    return {
      ...(this.ordering.syncedUntil ? { syncedUntil: this.ordering.syncedUntil.lexical } : {}),
      outcome,
    };
  }

  // ---- status and errors

  private async setError(message: string): Promise<void> {
    this.lastError = message;
    await this.rt.repo.updateSource(this.source.id, {
      lastError: message.slice(0, 500),
      lastErrorAt: this.rt.clock(),
    });
  }

  private async clearError(): Promise<void> {
    if (this.lastError === undefined) return;
    this.lastError = undefined;
    await this.rt.repo.updateSource(this.source.id, {
      lastError: undefined,
      lastErrorAt: undefined,
    });
  }

  async status(): Promise<SourceStatus> {
    const fresh = (await this.rt.repo.getSource(this.cfg.name)) ?? this.source;
    const buffered = this.ordering.buffer.length + (this.ordering.applying ? 1 : 0);
    return sourceStatus(this.rt.repo, fresh, {
      buffered: this.ready ? buffered : (await this.rt.repo.counters(this.source.id)).openInbox,
      ...(this.newestUntil ? { newestUntilMs: this.newestUntil.epochMs } : {}),
      ...(this.lastError !== undefined ? { lastError: this.lastError } : {}),
    });
  }

  /** Stop timers, let the step in flight finish (bounded), then release the mirror. */
  async stop(timeoutMs: number): Promise<void> {
    this.closed = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    const settle = Promise.all([this.lane, this.subLane]);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      settle,
      new Promise<void>((r) => {
        timer = setTimeout(r, timeoutMs);
      }),
    ]);
    if (timer) clearTimeout(timer);
    await this.mirror.close();
    await this.hooks?.drain(5_000);
  }
}
