// Posting notifications to the hub (RT-4): one POST in flight at a time, so the hub receives them in
// the order made unless a fault says otherwise. Faults act here: a dropped notification is never
// queued, a delayed one re-enters the queue later (so later ones overtake it), a reordered one waits
// for the next notification and follows it, a duplicate is queued twice. A failed POST is retried
// with backoff (5xx, 429, network errors) while it blocks the queue, as a real Source would, until
// its retry age runs out.
import { request, type Agent } from 'undici';
import { createOutboundAgent, describeError, formatLinkHeader } from '@rsnotify/shared';
import type { NotificationFate } from './faults.js';
import { backoff } from '@rsnotify/service-kit';

export interface OutgoingNotification {
  /** 1, 2, ... in the order made. */
  readonly seq: number;
  readonly from: string;
  readonly until: string;
  readonly entries: number;
  readonly body: Buffer;
}

export type PostOutcome =
  | { readonly kind: 'accepted'; readonly status: number }
  | { readonly kind: 'rejected'; readonly status: number }
  | { readonly kind: 'network-error'; readonly code?: string; readonly message: string };

/** How every made notification ended (or is still waiting). */
export interface PostRecord {
  readonly seq: number;
  readonly from: string;
  readonly until: string;
  readonly copy: 'original' | 'duplicate';
  fate: 'queued' | 'dropped' | 'no-hub' | 'accepted' | 'rejected' | 'gave-up' | 'cancelled';
  status?: number;
  attempts: number;
  error?: string;
}

export interface RetryPolicy {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  /** Give up on a notification this long after its first attempt. */
  readonly maxAgeMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  initialDelayMs: 100,
  maxDelayMs: 2_000,
  maxAgeMs: 30_000,
};

/** Pure: after an attempt, retry (after how long) or stop. Only 5xx, 429 and network errors retry. */
export function nextPostStep(
  outcome: PostOutcome,
  attempt: number,
  firstAttemptAtMs: number,
  nowMs: number,
  policy: RetryPolicy,
): { readonly retry: true; readonly delayMs: number } | { readonly retry: false } {
  const retryable =
    outcome.kind === 'network-error' ||
    (outcome.kind === 'rejected' && (outcome.status >= 500 || outcome.status === 429));
  if (!retryable) return { retry: false };
  const delayMs = backoff(
    attempt,
    { baseMs: policy.initialDelayMs, maxMs: policy.maxDelayMs, jitter: 'none' },
    Math.random,
  );
  if (nowMs + delayMs - firstAttemptAtMs > policy.maxAgeMs) return { retry: false };
  return { retry: true, delayMs };
}

export interface HubTarget {
  readonly url: string;
  readonly token?: string;
}

export interface PublisherOptions {
  readonly topicUrl: string;
  readonly capabilityListUrl: string;
  readonly hub: () => HubTarget | undefined;
  readonly retry?: RetryPolicy;
  /** How long a reordered notification waits for a successor before it is posted anyway. */
  readonly reorderHoldMs?: number;
  readonly historyLimit?: number;
  readonly now?: () => number;
  readonly log?: (event: string, fields: Record<string, unknown>) => void;
}

interface QueueItem {
  readonly n: OutgoingNotification;
  readonly record: PostRecord;
}

export interface PublisherStats {
  made: number;
  dropped: number;
  delayed: number;
  reordered: number;
  duplicated: number;
  accepted: number;
  rejected: number;
  gaveUp: number;
  attempts: number;
  noHub: number;
}

export class Publisher {
  private readonly queue: QueueItem[] = [];
  private held: { item: QueueItem; timer: NodeJS.Timeout } | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  private sending = false;
  private closed = false;
  private idleWaiters: (() => void)[] = [];
  private sleepCancel: (() => void) | undefined;
  private readonly agent: Agent;
  private readonly now: () => number;
  private readonly retry: RetryPolicy;
  readonly history: PostRecord[] = [];
  readonly stats: PublisherStats = {
    made: 0,
    dropped: 0,
    delayed: 0,
    reordered: 0,
    duplicated: 0,
    accepted: 0,
    rejected: 0,
    gaveUp: 0,
    attempts: 0,
    noHub: 0,
  };

  constructor(private readonly options: PublisherOptions) {
    // Loopback hubs are the point of the simulator, so the private-network guard is off here.
    this.agent = createOutboundAgent({
      allowPrivateNetworks: true,
      connections: 2,
      headersTimeoutMs: 15_000,
      bodyTimeoutMs: 15_000,
    });
    this.now = options.now ?? Date.now;
    this.retry = options.retry ?? DEFAULT_RETRY;
  }

  private record(n: OutgoingNotification, copy: PostRecord['copy']): PostRecord {
    const r: PostRecord = {
      seq: n.seq,
      from: n.from,
      until: n.until,
      copy,
      fate: 'queued',
      attempts: 0,
    };
    this.history.push(r);
    const limit = this.options.historyLimit ?? 10_000;
    if (this.history.length > limit) this.history.splice(0, this.history.length - limit);
    return r;
  }

  /** Takes a made notification with its fault decision. */
  submit(n: OutgoingNotification, fate: NotificationFate): void {
    if (this.closed) return;
    this.stats.made++;
    const record = this.record(n, 'original');
    if (fate.drop) {
      record.fate = 'dropped';
      this.stats.dropped++;
      this.options.log?.('notification.dropped_by_fault', {
        seq: n.seq,
        from: n.from,
        until: n.until,
      });
      // A reordered predecessor is still released after this one's turn.
      this.releaseHeld();
      this.checkIdle();
      return;
    }
    const items: QueueItem[] = [{ n, record }];
    if (fate.duplicate) {
      items.push({ n, record: this.record(n, 'duplicate') });
      this.stats.duplicated++;
    }
    const deliver = (item: QueueItem) => {
      if (fate.delayMs > 0) {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          this.push(item);
        }, fate.delayMs);
        this.timers.add(timer);
      } else {
        this.push(item);
      }
    };
    if (fate.delayMs > 0) this.stats.delayed++;
    const previous = this.held;
    this.held = undefined;
    if (previous) clearTimeout(previous.timer);
    if (fate.reorder && !previous) {
      // Post after the next notification: hold the first copy, queue any duplicate normally.
      this.stats.reordered++;
      const [first, ...rest] = items;
      const timer = setTimeout(() => this.releaseHeld(), this.options.reorderHoldMs ?? 1_000);
      this.held = { item: first!, timer };
      rest.forEach(deliver);
    } else {
      items.forEach(deliver);
    }
    if (previous) this.push(previous.item);
    this.checkIdle();
  }

  private releaseHeld(): void {
    const held = this.held;
    if (!held) return;
    this.held = undefined;
    clearTimeout(held.timer);
    this.push(held.item);
  }

  private push(item: QueueItem): void {
    if (this.closed) return;
    this.queue.push(item);
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    try {
      while (this.queue.length > 0 && !this.closed) {
        const item = this.queue[0]!;
        await this.post(item);
        this.queue.shift();
      }
    } finally {
      this.sending = false;
      this.checkIdle();
    }
  }

  private async post(item: QueueItem): Promise<void> {
    const { n, record } = item;
    const firstAt = this.now();
    for (;;) {
      const hub = this.options.hub();
      if (!hub) {
        record.fate = 'no-hub';
        this.stats.noHub++;
        return;
      }
      record.attempts++;
      this.stats.attempts++;
      const outcome = await this.send(hub, n.body);
      if (this.closed) {
        record.fate = 'cancelled';
        return;
      }
      if (outcome.kind === 'accepted') {
        record.fate = 'accepted';
        record.status = outcome.status;
        this.stats.accepted++;
        return;
      }
      if (outcome.kind === 'rejected') record.status = outcome.status;
      else record.error = outcome.code ?? outcome.message;
      const step = nextPostStep(outcome, record.attempts, firstAt, this.now(), this.retry);
      if (!step.retry) {
        record.fate =
          outcome.kind === 'rejected' && outcome.status < 500 && outcome.status !== 429
            ? 'rejected'
            : 'gave-up';
        if (record.fate === 'rejected') this.stats.rejected++;
        else this.stats.gaveUp++;
        this.options.log?.('notification.post_failed', {
          seq: n.seq,
          fate: record.fate,
          status: record.status,
          error: record.error,
          attempts: record.attempts,
        });
        return;
      }
      await this.sleep(step.delayMs);
      if (this.closed) {
        record.fate = 'cancelled';
        return;
      }
    }
  }

  private async send(hub: HubTarget, body: Buffer): Promise<PostOutcome> {
    const headers: Record<string, string> = {
      'content-type': 'application/xml',
      // RT-4: self and hub are mandatory; the Capability List link is allowed (RS-CN Example 2).
      link: formatLinkHeader([
        { href: this.options.topicUrl, rel: 'self' },
        { href: hub.url, rel: 'hub' },
        { href: this.options.capabilityListUrl, rel: 'resourcesync' },
      ]),
    };
    if (hub.token) headers.authorization = `Bearer ${hub.token}`;
    try {
      const res = await request(hub.url, { method: 'POST', headers, body, dispatcher: this.agent });
      await res.body.dump();
      return res.statusCode === 200
        ? { kind: 'accepted', status: 200 }
        : { kind: 'rejected', status: res.statusCode };
    } catch (err) {
      const d = describeError(err);
      return { kind: 'network-error', ...(d.code ? { code: d.code } : {}), message: d.message };
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.sleepCancel = undefined;
        resolve();
      }, ms);
      this.sleepCancel = () => {
        clearTimeout(timer);
        this.sleepCancel = undefined;
        resolve();
      };
    });
  }

  private isIdle(): boolean {
    return this.queue.length === 0 && !this.sending && !this.held && this.timers.size === 0;
  }

  private checkIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** Resolves once every submitted notification was posted, dropped or given up. */
  flush(): Promise<void> {
    // A reordered notification waiting for a successor goes now; delayed ones keep their delay.
    this.releaseHeld();
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Notifications made but not finished yet (queued, held, delayed or in flight). */
  get outstanding(): number {
    return this.queue.length + (this.held ? 1 : 0) + this.timers.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.held) clearTimeout(this.held.timer);
    this.held = undefined;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.sleepCancel?.();
    for (const item of this.queue)
      if (item.record.fate === 'queued') item.record.fate = 'cancelled';
    this.queue.length = 0;
    await this.agent.destroy();
    this.checkIdle();
  }
}
