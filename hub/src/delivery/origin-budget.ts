// Per-origin in-flight budgets for deliveries, so callbacks that accept a connection and never answer
// cannot take the hub's delivery capacity from everyone else (README: "a slow callback holds only its
// own slot").
//
// Each callback origin may have `perOrigin` deliveries *active* at once. A delivery still unanswered
// after `slowAfterMs` is moved from active to *stalled*: it keeps its connection but no longer holds
// the origin's (or the global) active budget, so the next subscriptions of that origin, and of every
// other origin, get their turn. Stalled deliveries are bounded too (`maxPerOrigin` in all per origin,
// matching the connection pool, and `maxTotal` over all origins). Deliveries that find no room are
// parked per origin and woken, first parked first, as room appears. The per-origin circuit breaker
// (breaker.ts) decides whether an origin may be tried at all.
import {
  BREAKER_STATE_VALUE,
  DEFAULT_BREAKER_OPTIONS,
  OriginBreakers,
  type BreakerChange,
  type BreakerOptions,
} from './breaker.js';
import type { HubMetrics, Logger } from '../observability/index.js';
import type { DeliveryOutcome } from '../outbound/index.js';
import { performance } from 'node:perf_hooks';

export interface OriginBudgetOptions {
  /** Active (not yet slow) deliveries per origin. */
  readonly perOrigin: number;
  /** All deliveries in flight per origin, stalled ones included (at most the connection pool size). */
  readonly maxPerOrigin: number;
  /** Active deliveries over all origins (the hub's maxInFlight). */
  readonly global: number;
  /** All deliveries in flight over all origins. */
  readonly maxTotal: number;
  /** An unanswered delivery stops holding the active budget after this long. */
  readonly slowAfterMs: number;
  readonly breaker: BreakerOptions;
}

export const DEFAULT_SLOW_AFTER_MS = 250;
/**
 * Active deliveries per origin (at most the origin's pool). It bounds how many requests one origin
 * keeps on the wire, and so a busy origin's throughput (deliveries in flight / round trip): at 8 a
 * fan-out to 1,000 callbacks on 4 origins held 32 requests on the wire where an undici client with
 * the same 16 connections per origin keeps 64 and went ~2x faster. 16 keeps the isolation (a hanging
 * origin holds 16 active slots for `slowAfterMs`, then only stalled ones) and uses that pool.
 */
export const DEFAULT_ACTIVE_PER_ORIGIN = 16;

/**
 * A delivery waiting for room at its origin (the scheduler's subscription state). The budget sets
 * `parked` when it queues it and clears it when it wakes or drops it, so the flag is the one record
 * of whether it is waiting: no map of waiting deliveries and no closure per park.
 */
export interface Parkable {
  parked: boolean;
}

/** One delivery's hold on the budget; give it back with `release`. */
export interface OriginSlot {
  readonly origin: string;
  readonly probe: boolean;
  stalled: boolean;
  released: boolean;
  /** When (monotonic ms) the delivery stops holding the active budget if still unanswered. */
  readonly stallAt: number;
}

interface OriginState<P extends Parkable> {
  active: number;
  stalled: number;
  /** How many of `queue` are still parked. */
  parked: number;
  /**
   * The parked deliveries, first parked first, woken from `queueHead` on; one no longer `parked`
   * (dropped, or woken from an earlier place) is skipped. At a busy origin a subscription parks once
   * per delivery: an entry and a closure per park, or a map of them, were work the scheduler bench
   * measured (`pnpm bench scheduler`).
   */
  queue: P[];
  queueHead: number;
  wakeTimer: NodeJS.Timeout | undefined;
}

export interface OriginBudgetHooks<P extends Parkable> {
  readonly now: () => number;
  /** A breaker changed state (the scheduler logs it and sets the gauge). */
  readonly onBreakerChange: (change: BreakerChange & { readonly value: number }) => void;
  /** Global room appeared (a slot was released or stalled): start what is queued. */
  readonly onRoom: () => void;
  /** A parked delivery's origin has room for it now (it is no longer `parked`). */
  readonly onWake: (parked: P) => void;
}

export class OriginBudget<P extends Parkable = Parkable> {
  private readonly origins = new Map<string, OriginState<P>>();
  private readonly breakers: OriginBreakers;
  private active = 0;
  private total = 0;
  /**
   * Slots in the order they were taken: every slot stalls `slowAfterMs` after it started, so the
   * oldest unreleased one is the next to stall and one timer (armed for it) serves them all, instead
   * of a timer set and cleared per delivery.
   */
  private started: (OriginSlot | undefined)[] = [];
  private startedHead = 0;
  private stallTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: OriginBudgetOptions,
    private readonly hooks: OriginBudgetHooks<P>,
  ) {
    this.breakers = new OriginBreakers(options.breaker, hooks.now, (change) => {
      hooks.onBreakerChange({ ...change, value: BREAKER_STATE_VALUE[change.to] });
      if (change.to === 'open' && change.retryAt !== undefined)
        this.wakeAt(change.origin, change.retryAt);
      if (change.to === 'closed') this.wake(change.origin);
    });
  }

  /** Is there global room to start another delivery? */
  hasRoom(): boolean {
    return this.active < this.options.global && this.total < this.options.maxTotal;
  }

  /** Active deliveries over all origins. */
  activeCount(): number {
    return this.active;
  }

  /** Has `origin` as many deliveries as it may have, so that `tryAcquire` would refuse now? */
  isFull(origin: string): boolean {
    const o = this.origins.get(origin);
    return o !== undefined && this.atCapacity(o);
  }

  private atCapacity(o: OriginState<P>): boolean {
    return o.active >= this.options.perOrigin || o.active + o.stalled >= this.options.maxPerOrigin;
  }

  /**
   * A slot for a delivery to `origin`, or undefined when the origin has no room (or its breaker is
   * open): then `park` the delivery. `suspect`: the subscription's last delivery failed.
   */
  tryAcquire(origin: string, suspect: boolean): OriginSlot | undefined {
    const o = this.state(origin);
    if (this.atCapacity(o)) return undefined;
    const gate = this.breakers.allow(origin, suspect);
    if (!gate.ok) return undefined;
    o.active++;
    this.active++;
    this.total++;
    const slot: OriginSlot = {
      origin,
      probe: gate.probe,
      stalled: false,
      released: false,
      stallAt: performance.now() + this.options.slowAfterMs,
    };
    this.started.push(slot);
    if (!this.stallTimer) this.armStallTimer();
    return slot;
  }

  /** Waits for room at `origin`; `onWake` hands the delivery back. Parked already: keeps its place. */
  park(origin: string, delivery: P): void {
    if (delivery.parked) return;
    const o = this.state(origin);
    delivery.parked = true;
    o.parked++;
    o.queue.push(delivery);
    const retryAt = this.breakers.retryAt(origin);
    if (retryAt !== undefined) this.wakeAt(origin, retryAt);
  }

  /** A parked delivery went away: it is skipped when its turn comes. */
  unpark(origin: string, delivery: P): void {
    if (!delivery.parked) return;
    delivery.parked = false;
    const o = this.origins.get(origin);
    if (o) o.parked--;
  }

  release(slot: OriginSlot, outcome: DeliveryOutcome): void {
    if (slot.released) return;
    slot.released = true;
    this.dropFinished();
    const o = this.state(slot.origin);
    if (slot.stalled) o.stalled--;
    else {
      o.active--;
      this.active--;
    }
    this.total--;
    this.breakers.record(slot.origin, outcome, slot.probe);
    this.wake(slot.origin);
    this.forget(slot.origin, o);
    this.hooks.onRoom();
  }

  /** Stops the wake-up timers (the scheduler is closing). */
  close(): void {
    for (const o of this.origins.values()) if (o.wakeTimer) clearTimeout(o.wakeTimer);
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
  }

  /** Stalls every unanswered slot whose time has come, then arms the timer for the next one. */
  private stallDue(): void {
    this.stallTimer = undefined;
    const now = performance.now();
    while (this.startedHead < this.started.length) {
      const slot = this.started[this.startedHead]!;
      if (!slot.released && !slot.stalled && slot.stallAt > now) break;
      this.started[this.startedHead++] = undefined;
      if (!slot.released && !slot.stalled) this.stall(slot);
    }
    this.armStallTimer();
  }

  private armStallTimer(): void {
    // A stall inside stallDue() may start deliveries that arm it again: one timer at a time.
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
    this.dropFinished();
    const next = this.started[this.startedHead];
    if (!next) return;
    this.stallTimer = setTimeout(
      () => this.stallDue(),
      Math.max(1, Math.ceil(next.stallAt - performance.now())),
    );
    this.stallTimer.unref();
  }

  /**
   * Forgets the released and stalled slots at the front of `started`. Called at every release, not
   * only when the stall timer fires: held until then, every slot outlived its delivery by
   * slowAfterMs (some 11,000 slots in the queue at a fan-out to 1,000 callbacks).
   */
  private dropFinished(): void {
    const started = this.started;
    let head = this.startedHead;
    while (head < started.length) {
      const slot = started[head]!;
      if (!slot.released && !slot.stalled) break;
      started[head++] = undefined;
    }
    if (head === started.length) {
      this.started = [];
      this.startedHead = 0;
    } else if (head > 1024 && head * 2 > started.length) {
      this.started = started.slice(head);
      this.startedHead = 0;
    } else {
      this.startedHead = head;
    }
  }

  private stall(slot: OriginSlot): void {
    if (slot.released || slot.stalled) return;
    slot.stalled = true;
    const o = this.state(slot.origin);
    o.active--;
    o.stalled++;
    this.active--;
    this.wake(slot.origin);
    this.hooks.onRoom();
  }

  /** Wakes as many parked deliveries of `origin` as it has room for, first parked first. */
  private wake(origin: string): void {
    const o = this.origins.get(origin);
    if (!o || o.parked === 0) return;
    let room = Math.min(
      this.options.perOrigin - o.active,
      this.options.maxPerOrigin - o.active - o.stalled,
    );
    if (this.breakers.state(origin) !== 'closed') room = Math.min(room, 1);
    while (room > 0 && o.queueHead < o.queue.length) {
      const delivery = o.queue[o.queueHead++]!;
      if (!delivery.parked) continue;
      room--;
      delivery.parked = false;
      o.parked--;
      this.hooks.onWake(delivery);
    }
    if (o.queueHead === o.queue.length) {
      o.queue = [];
      o.queueHead = 0;
    } else if (o.queueHead > 1024 && o.queueHead * 2 > o.queue.length) {
      o.queue = o.queue.slice(o.queueHead);
      o.queueHead = 0;
    }
  }

  private wakeAt(origin: string, at: number): void {
    const o = this.state(origin);
    if (o.wakeTimer) return;
    o.wakeTimer = setTimeout(
      () => {
        o.wakeTimer = undefined;
        this.wake(origin);
        this.hooks.onRoom();
      },
      Math.max(1, at - this.hooks.now()),
    );
    o.wakeTimer.unref();
  }

  private state(origin: string): OriginState<P> {
    let o = this.origins.get(origin);
    if (!o) {
      o = {
        active: 0,
        stalled: 0,
        parked: 0,
        queue: [],
        queueHead: 0,
        wakeTimer: undefined,
      };
      this.origins.set(origin, o);
    }
    return o;
  }

  private forget(origin: string, o: OriginState<P>): void {
    if (
      o.active === 0 &&
      o.stalled === 0 &&
      o.parked === 0 &&
      !o.wakeTimer &&
      this.breakers.state(origin) === 'closed'
    ) {
      this.origins.delete(origin);
    }
  }
}

/** The log line and gauge for a breaker change: `delivery.origin_breaker_{open,half_open,closed}`. */
export function reportBreakerChange(
  logger: { info(o: object, m: string): void; warn(o: object, m: string): void },
  gauge: { set(labels: { origin: string }, value: number): void },
  change: BreakerChange & { readonly value: number },
): void {
  gauge.set({ origin: change.origin }, change.value);
  const event = `delivery.origin_breaker_${change.to.replace('-', '_')}`;
  const fields = {
    event,
    origin: change.origin,
    from: change.from,
    failures: change.failures,
    ...(change.retryAt ? { retryAt: new Date(change.retryAt).toISOString() } : {}),
  };
  if (change.to === 'open')
    logger.warn(fields, 'callback origin not answering; deliveries to it paused');
  else
    logger.info(
      fields,
      change.to === 'closed' ? 'callback origin answers again' : 'probing callback origin',
    );
}

/** The scheduler's budget: defaults filled in, breaker changes logged and put in the gauge. */
export function createDeliveryBudget<P extends Parkable>(
  o: Partial<Omit<OriginBudgetOptions, 'global'>> | undefined,
  deps: {
    readonly maxInFlight: number;
    readonly now: () => number;
    readonly logger: Logger;
    readonly metrics: HubMetrics;
  },
  pump: () => void,
  onWake: (parked: P) => void,
): OriginBudget<P> {
  const maxPerOrigin = o?.maxPerOrigin ?? 64;
  const perOrigin = o?.perOrigin ?? Math.min(DEFAULT_ACTIVE_PER_ORIGIN, maxPerOrigin);
  return new OriginBudget(
    {
      perOrigin,
      maxPerOrigin: Math.max(perOrigin, maxPerOrigin),
      global: deps.maxInFlight,
      maxTotal: o?.maxTotal ?? deps.maxInFlight * 4,
      slowAfterMs: o?.slowAfterMs ?? DEFAULT_SLOW_AFTER_MS,
      breaker: o?.breaker ?? DEFAULT_BREAKER_OPTIONS,
    },
    {
      now: deps.now,
      onBreakerChange: (change) =>
        reportBreakerChange(deps.logger, deps.metrics.originBreakerState, change),
      onRoom: pump,
      onWake,
    },
  );
}
