// The delivery scheduler: one cursor per subscription, due when behind its topic's last seq and its
// next attempt time has come. At most one delivery per subscription is in flight (publish order per
// subscriber, M-3; a slow callback holds only its own slot); a global limit bounds the total. Cursor
// moves are written in batches (cursor-writer.ts); a crash replays from the last written cursor.
import type { HubMetrics, Logger } from '../observability/index.js';
import type { StoredNotification, Subscription } from '../store/index.js';
import type { DeliveryStore } from './delivery-store.js';
import type { DeliveryOwnership } from './ownership.js';
import { hasLeaseLapsed } from '../subscriptions/index.js';
import type { NotificationCache } from './cache.js';
import { NotificationReads } from './notification-reads.js';
import { classifyError, type DeliveryOutcome, type SendDelivery } from '../outbound/index.js';
import { nextStep, type RetryPolicy } from './retry-policy.js';
import {
  createDeliveryBudget,
  type OriginBudget,
  type OriginBudgetOptions,
  type OriginSlot,
} from './origin-budget.js';
import { CursorWriter } from './cursor-writer.js';
import { deliveryLog } from './delivery-log.js';
import {
  cursorOf,
  isTaken,
  sendDelivery,
  subStateOf,
  topicState,
  type SubState,
  type TopicState,
} from './subscription-state.js';

const NOTIFICATION_MISSING: DeliveryOutcome = { kind: 'failed', code: 'RSN_NOTIFICATION_MISSING' };

export interface SchedulerDeps {
  readonly store: DeliveryStore;
  readonly send: SendDelivery;
  readonly cache: NotificationCache;
  readonly logger: Logger;
  readonly metrics: HubMetrics;
  readonly retry: RetryPolicy;
  readonly maxInFlight: number;
  readonly now: () => number;
  readonly random: () => number;
  /** How long cursor moves are gathered before one transaction writes them. */
  readonly flushDelayMs?: number;
  /** Which subscriptions this process drives (several hub processes on one database); default all. */
  readonly ownership?: DeliveryOwnership;
  /** Per-origin budgets and breaker (origin-budget.ts); `global` is always maxInFlight. */
  readonly originBudget?: Partial<Omit<OriginBudgetOptions, 'global'>>;
  /** hub.secret as stored → the secret itself (secrets at rest, hub/src/secrets); default as is. */
  readonly openSecret?: (stored: string) => string;
}

export class DeliveryScheduler {
  private readonly topics = new Map<number, TopicState>();
  private readonly subs = new Map<number, SubState>();
  private ready: SubState[] = [];
  private readyHead = 0;
  private inFlight = 0;
  private closed = false;
  private idleWaiters: (() => void)[] = [];
  private readonly releasing = new Set<number>();

  private readonly budget: OriginBudget<SubState>;
  private readonly cursors: CursorWriter<SubState>;
  private readonly reads: NotificationReads;

  constructor(private readonly deps: SchedulerDeps) {
    // A parked subscription is considered again when its origin has room, not at every publish: at
    // 1,000 subscriptions that was a pass through the queue per subscription per publish.
    this.budget = createDeliveryBudget<SubState>(
      deps.originBudget,
      deps,
      () => this.pump(),
      (sub) => this.consider(sub),
    );
    this.cursors = new CursorWriter({ ...deps, cursorOf });
    this.reads = new NotificationReads(deps.store, deps.cache);
  }

  /** Loads every topic and subscription: pending deliveries resume where the stored cursors are. */
  async start(): Promise<void> {
    for (const t of await this.deps.store.listTopics()) topicState(this.topics, t.id, t.lastSeq);
    for (const s of await this.deps.store.listSubscriptions()) if (this.drives(s.id)) this.track(s);
    for (const sub of this.subs.values()) this.consider(sub);
    this.pump();
  }

  /** A notification was committed: wake the topic's subscriptions. True: one started at once. */
  published(n: StoredNotification): boolean {
    const topic = topicState(this.topics, n.topicId, n.seq);
    if (n.seq > topic.lastSeq) topic.lastSeq = n.seq;
    // Kept in memory for the subscriptions driven here, until each has passed it (cache.ts).
    this.deps.cache.put(n, topic.subs.size);
    for (const sub of topic.subs.values()) this.consider(sub);
    return this.pump() > 0;
  }

  /** A verified (re-)subscription: new ones start at the topic's end, existing ones keep their cursor (WH-9). */
  upsert(s: Subscription): void {
    const existing = this.subs.get(s.id);
    if (existing) {
      existing.secret = s.secret;
      existing.algorithm = s.algorithm;
      existing.leaseExpiresAt = s.leaseExpiresAt;
      if (s.deliveredSeq > existing.deliveredSeq) {
        // The store moved the cursor forward (a renewal after a lapse): skip what was owed to no one.
        existing.deliveredSeq = s.deliveredSeq;
        existing.attempts = 0;
        existing.firstFailedAt = undefined;
        existing.nextAttemptAt = 0;
      }
      this.consider(existing);
    } else if (this.drives(s.id)) {
      this.consider(this.track(s));
    }
    this.pump();
  }

  private drives(id: number): boolean {
    return this.deps.ownership?.drives(id) ?? true;
  }

  /** Another process committed notifications up to `seq` on the topic (the wake hook). */
  wake(topicId: number, seq: number): void {
    const topic = this.topics.get(topicId);
    if (!topic || seq <= topic.lastSeq) return;
    topic.lastSeq = seq;
    for (const sub of topic.subs.values()) this.consider(sub);
    this.pump();
  }

  /** Hands a subscription back (another process takes it): waits for its delivery in flight, saves its cursor. */
  async release(id: number): Promise<void> {
    const sub = this.subs.get(id);
    if (!sub) return;
    this.releasing.add(id);
    while (sub.inFlight) await new Promise((r) => setTimeout(r, 5));
    const cursor = sub.cursorDirty ? cursorOf(sub) : undefined;
    this.remove(id);
    this.releasing.delete(id);
    if (cursor) this.cursors.markFixed(cursor);
    await this.flush();
  }

  /** The ids of the subscriptions this process drives now. */
  drivenIds(): number[] {
    return [...this.subs.keys()];
  }

  remove(id: number): void {
    const sub = this.subs.get(id);
    if (!sub) return;
    sub.removed = true;
    this.budget.unpark(sub.target.origin, sub);
    if (sub.timer) clearTimeout(sub.timer);
    sub.timer = undefined;
    this.subs.delete(id);
    sub.topic.subs.delete(id);
    this.cursors.forget(sub);
  }

  /** Notifications accepted but not yet done, summed over subscriptions. */
  queueDepth(): number {
    let n = 0;
    for (const sub of this.subs.values()) n += Math.max(0, sub.topic.lastSeq - sub.deliveredSeq);
    return n;
  }

  inFlightCount(): number {
    return this.inFlight;
  }

  /** Stops starting deliveries, waits for those in flight (up to graceMs), writes the cursors. */
  async close(graceMs = 5_000): Promise<void> {
    this.closed = true;
    this.budget.close();
    for (const sub of this.subs.values()) clearTimeout(sub.timer); // closed: none is set again
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        this.idleWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    this.cursors.close();
    await this.flush();
  }

  private track(s: Subscription): SubState {
    const topic = topicState(this.topics, s.topicId, s.deliveredSeq);
    const sub = subStateOf(s, topic);
    this.subs.set(s.id, sub);
    topic.subs.set(s.id, sub);
    return sub;
  }

  /** `clock`: the time the caller already read, if it did (a delivery's completion). */
  private consider(sub: SubState, clock?: number): void {
    if (this.closed || isTaken(sub) || this.releasing.has(sub.id)) return;
    if (sub.deliveredSeq >= sub.topic.lastSeq) return;
    const now = clock ?? this.deps.now();
    if (hasLeaseLapsed(sub.leaseExpiresAt, now)) {
      // WH-13: an expired subscription gets nothing; the expiry sweep deletes its row.
      deliveryLog.expired(this.deps.logger, sub);
      this.remove(sub.id);
      return;
    }
    if (sub.nextAttemptAt > now) {
      if (!sub.timer) {
        sub.timer = setTimeout(() => {
          sub.timer = undefined;
          this.consider(sub);
          this.pump();
        }, sub.nextAttemptAt - now);
      }
      return;
    }
    // Its origin is full: parked at once, where the queue would only have led it to the same park.
    if (this.budget.isFull(sub.target.origin)) {
      this.budget.park(sub.target.origin, sub);
      return;
    }
    sub.queued = true;
    this.ready.push(sub);
  }

  /** Starts every delivery there is room for; returns how many started. */
  private pump(): number {
    const inFlightBefore = this.inFlight;
    while (!this.closed && this.budget.hasRoom() && this.readyHead < this.ready.length) {
      const sub = this.ready[this.readyHead++]!;
      sub.queued = false;
      if (
        sub.removed ||
        sub.inFlight ||
        sub.deliveredSeq >= sub.topic.lastSeq ||
        this.releasing.has(sub.id)
      )
        continue;
      // Per-origin budget and breaker: no room at this origin parks the subscription until there is.
      const slot = this.budget.tryAcquire(sub.target.origin, sub.attempts > 0);
      if (!slot) {
        this.budget.park(sub.target.origin, sub);
        continue;
      }
      this.deliver(sub, slot);
    }
    if (this.readyHead > 1024 && this.readyHead * 2 > this.ready.length) {
      this.ready = this.ready.slice(this.readyHead);
      this.readyHead = 0;
    } else if (this.readyHead === this.ready.length) {
      this.ready = [];
      this.readyHead = 0;
    }
    return this.inFlight - inFlightBefore;
  }

  // deliver, post and settle: one delivery, as plain callbacks rather than an async function, whose
  // generator, result promise and resumption were a measurable part of the scheduler's own CPU per
  // delivery (`pnpm bench scheduler`).
  private deliver(sub: SubState, slot: OriginSlot): void {
    sub.inFlight = true;
    this.inFlight++;
    const seq = sub.deliveredSeq + 1;
    const cached = this.deps.cache.get(sub.topic.id, seq);
    if (cached) return this.post(sub, slot, seq, cached);
    this.reads.read(sub.topic, seq).then(
      (n) => {
        if (n) this.post(sub, slot, seq, n);
        else this.settle(sub, slot, seq, undefined, NOTIFICATION_MISSING);
      },
      (err: unknown) => this.settle(sub, slot, seq, undefined, classifyError(err)),
    );
  }

  private post(sub: SubState, slot: OriginSlot, seq: number, n: StoredNotification): void {
    let sent: Promise<DeliveryOutcome>;
    try {
      sent = sendDelivery(this.deps.send, sub, n, this.deps.openSecret);
    } catch (err) {
      this.settle(sub, slot, seq, n, classifyError(err));
      return;
    }
    sent.then(
      (outcome) => this.settle(sub, slot, seq, n, outcome),
      (err: unknown) => this.settle(sub, slot, seq, n, classifyError(err)),
    );
  }

  private settle(
    sub: SubState,
    slot: OriginSlot,
    seq: number,
    n: StoredNotification | undefined,
    outcome: DeliveryOutcome,
  ): void {
    this.inFlight--;
    sub.inFlight = false;
    const now = this.deps.now();
    if (!sub.removed) this.complete(sub, seq, n, outcome, now);
    // After complete: the slot's release may start queued deliveries, this subscription's next included.
    this.budget.release(slot, outcome);
    if (this.inFlight === 0 && this.idleWaiters.length > 0) {
      for (const w of this.idleWaiters.splice(0)) w();
    }
    this.consider(sub, now);
    this.pump();
  }

  private complete(
    sub: SubState,
    seq: number,
    n: StoredNotification | undefined,
    outcome: DeliveryOutcome,
    now: number,
  ): void {
    const log = this.deps.logger;
    if (!n && outcome.kind === 'failed' && outcome.code === 'RSN_NOTIFICATION_MISSING') {
      deliveryLog.missing(log, sub, seq);
      this.giveUp(sub, seq, 'notification missing from the store');
      return;
    }
    // A failed read of the row (the database away or overloaded) is retried like a failed POST.
    const step = nextStep(
      { attempts: sub.attempts, firstFailedAt: sub.firstFailedAt },
      outcome,
      now,
      this.deps.random,
      this.deps.retry,
    );
    switch (step.kind) {
      case 'advance':
        this.deps.cache.passed(sub.topic.id, seq);
        this.deps.metrics.countDelivery('delivered');
        if (n) this.deps.metrics.observeDeliveryLatency((now - n.receivedAt) / 1000);
        deliveryLog.succeeded(log, sub, seq);
        sub.deliveredSeq = seq;
        sub.attempts = 0;
        sub.firstFailedAt = undefined;
        sub.nextAttemptAt = 0;
        sub.lastStatus = outcome.kind === 'delivered' ? outcome.status : undefined;
        sub.lastError = undefined;
        this.cursors.mark(sub);
        return;
      case 'retry': {
        this.deps.metrics.countDelivery('failed');
        const failed = outcome.kind === 'failed' ? outcome : undefined;
        sub.attempts = step.attempts;
        sub.firstFailedAt = step.firstFailedAt;
        sub.nextAttemptAt = step.at;
        sub.lastStatus = failed?.status;
        sub.lastError = failed?.code;
        deliveryLog.failed(log, sub, seq, {
          status: failed?.status,
          code: failed?.code,
          attempts: step.attempts,
          retryInMs: step.at - now,
        });
        this.cursors.mark(sub);
        return;
      }
      case 'give_up':
        this.giveUp(sub, seq, step.reason);
        return;
      case 'end':
        // WH-19: 410 Gone ends the subscription.
        this.deps.metrics.countDelivery('gone');
        deliveryLog.gone(log, sub, seq);
        this.remove(sub.id);
        this.deps.store
          .removeSubscriptionById(sub.id)
          .catch((err: unknown) => deliveryLog.goneNotDeleted(log, sub, err));
        return;
    }
  }

  private giveUp(sub: SubState, seq: number, reason: string): void {
    this.deps.cache.passed(sub.topic.id, seq);
    this.deps.metrics.countDelivery('gave_up');
    deliveryLog.gaveUp(this.deps.logger, sub, seq, reason);
    sub.deliveredSeq = seq;
    sub.attempts = 0;
    sub.firstFailedAt = undefined;
    sub.nextAttemptAt = 0;
    this.cursors.markFixed(
      { ...cursorOf(sub), givenUp: { seq, reason, topicId: sub.topic.id, callback: sub.callback } },
      sub,
    );
  }

  /** Writes the gathered cursor moves in one transaction. */
  flush(): Promise<void> {
    return this.cursors.flush();
  }
}
