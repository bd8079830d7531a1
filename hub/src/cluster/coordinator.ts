// The delivery side of a hub cluster: this process's claims on subscriptions (a row with an
// expiry, renewed by a heartbeat), their hand-over, and the cross-process wake-ups. A process killed
// with -9 stops renewing; its claims expire after `ttlMs` and the live processes take them over,
// starting from the last saved cursor (at-least-once: what was delivered but not yet saved is sent
// again, in order). Work spreads by the fair share of ./ownership.ts.
import { describeError } from '@rsnotify/shared';
import type { Logger } from '../observability/index.js';
import type { DeliveryOwnership, DeliveryScheduler } from '../delivery/index.js';
import type { ClaimedSubscription, PostgresRepository, StoreEvent } from '../store/index.js';
import { fairShareStep } from './ownership.js';

export interface CoordinatorOptions {
  readonly store: PostgresRepository;
  readonly scheduler: () => DeliveryScheduler;
  readonly logger: Logger;
  readonly nodeId: string;
  /** A claim not renewed for this long is free to take (the takeover time after a crash). */
  readonly ttlMs?: number;
  readonly heartbeatMs?: number;
  readonly now?: () => number;
}

export class ClusterCoordinator implements DeliveryOwnership {
  private readonly owned = new Set<number>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private tickAgain = false;
  private lastRenewedAt = 0;
  private closed = false;
  private unsubscribe: (() => void) | undefined;
  liveNodes = 1;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(private readonly o: CoordinatorOptions) {
    this.ttlMs = o.ttlMs ?? 5_000;
    this.now = o.now ?? Date.now;
  }

  drives(subscriptionId: number): boolean {
    return this.owned.has(subscriptionId);
  }

  claims(): number {
    return this.owned.size;
  }

  async start(): Promise<void> {
    await this.o.store.cluster.registerNode(this.o.nodeId);
    this.unsubscribe = this.o.store.events.on((e) => this.onEvent(e));
    await this.tick();
    this.timer = setInterval(() => void this.tick(), this.o.heartbeatMs ?? 1_000);
    this.timer.unref();
  }

  /** A clean stop: claims handed back at once so the others need not wait for their expiry. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.unsubscribe?.();
    await this.ticking;
    await this.o.store.cluster.leave(this.o.nodeId).catch(() => undefined);
  }

  private onEvent(e: StoreEvent): void {
    if (this.closed) return;
    const scheduler = this.o.scheduler();
    switch (e.kind) {
      case 'published':
        scheduler.wake(e.topicId, e.seq);
        return;
      case 'removed':
        if (this.owned.delete(e.id)) scheduler.remove(e.id);
        void this.tick();
        return;
      case 'subscription':
        if (this.owned.has(e.id)) void this.reload(e.id);
        else void this.tick(); // a new one may be ours to claim
        return;
      case 'resync':
        // The listening connection was re-made: wake-ups may have been missed meanwhile.
        void this.resyncTopics();
        void this.tick();
        return;
      default:
    }
  }

  private async reload(id: number): Promise<void> {
    try {
      for (const c of await this.o.store.cluster.subscriptionsById([id]))
        if (this.owned.has(id)) this.adopt(c);
    } catch (err) {
      this.o.logger.warn(
        { event: 'cluster.reload_failed', err: describeError(err), subscription: id },
        'could not reload a changed subscription',
      );
    }
  }

  private async resyncTopics(): Promise<void> {
    try {
      const scheduler = this.o.scheduler();
      for (const t of await this.o.store.listTopics()) scheduler.wake(t.id, t.lastSeq);
    } catch {
      /* the next resync or publish wakes them */
    }
  }

  private adopt(c: ClaimedSubscription): void {
    this.owned.add(c.subscription.id);
    const scheduler = this.o.scheduler();
    scheduler.upsert(c.subscription);
    scheduler.wake(c.subscription.topicId, c.topicLastSeq);
  }

  /** Heartbeat, then claim or hand back towards the fair share. Serialised; a request while running runs once more after. */
  tick(): Promise<void> {
    if (this.ticking) {
      this.tickAgain = true;
      return this.ticking;
    }
    this.ticking = (async () => {
      do {
        this.tickAgain = false;
        if (this.closed) break;
        await this.tickOnce();
      } while (this.tickAgain);
    })().finally(() => {
      this.ticking = undefined;
    });
    return this.ticking;
  }

  private async tickOnce(): Promise<void> {
    const { store, nodeId, logger } = this.o;
    const scheduler = this.o.scheduler();
    try {
      const hb = await store.cluster.heartbeat(nodeId, this.ttlMs);
      this.lastRenewedAt = this.now();
      this.liveNodes = hb.liveNodes;
      const held = new Set(hb.held);
      for (const id of [...this.owned]) {
        if (held.has(id)) continue;
        // Our claim lapsed and another process took it (or the subscription is gone): stop driving it.
        this.owned.delete(id);
        scheduler.remove(id);
        logger.warn(
          { event: 'cluster.claim_lost', subscription: id },
          'delivery claim taken over by another process',
        );
      }
      const step = fairShareStep(this.owned.size, hb.activeSubscriptions, hb.liveNodes);
      if (step > 0) {
        const claimed = await store.cluster.claim(nodeId, step, this.ttlMs);
        for (const c of claimed) this.adopt(c);
        if (claimed.length > 0)
          logger.info(
            {
              event: 'cluster.claimed',
              count: claimed.length,
              claims: this.owned.size,
              liveNodes: hb.liveNodes,
            },
            'claimed subscriptions',
          );
      } else if (step < 0) {
        const give = [...this.owned].slice(step); // the newest claims go back first
        for (const id of give) {
          this.owned.delete(id);
          await scheduler.release(id);
        }
        await store.cluster.release(nodeId, give);
        logger.info(
          {
            event: 'cluster.released',
            count: give.length,
            claims: this.owned.size,
            liveNodes: hb.liveNodes,
          },
          'handed subscriptions back for others to take',
        );
      }
    } catch (err) {
      logger.error(
        { event: 'cluster.heartbeat_failed', err: describeError(err), claims: this.owned.size },
        'cluster heartbeat failed',
      );
      if (this.owned.size > 0 && this.now() - this.lastRenewedAt > this.ttlMs) {
        // Our claims may have expired: another process could be driving them now. Pause until the
        // database answers again; the saved cursors say where to resume.
        for (const id of this.owned) scheduler.remove(id);
        logger.warn(
          { event: 'cluster.claims_dropped', count: this.owned.size },
          'claims not renewed in time; deliveries paused',
        );
        this.owned.clear();
      }
    }
  }
}
