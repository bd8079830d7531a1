// The rig the DeliveryScheduler's unit tests share (delivery-scheduler*.test.ts): an in-memory store
// that records every cursor batch, a fake sender that answers what each test scripts, a manual clock.
import { logLines, waitFor } from '@rsnotify/service-kit/testing';
import { DeliveryScheduler, NotificationCache } from '../src/delivery/index.js';
import type { SchedulerDeps } from '../src/delivery/index.js';
import type { DeliveryStore, RetryPolicy } from '../src/delivery/index.js';
import { createLogger, HubMetrics } from '../src/observability/index.js';
import type { DeliveryOutcome, DeliveryTarget } from '../src/outbound/index.js';
import type {
  CursorUpdate,
  StoredNotification,
  Subscription,
  TopicRecord,
} from '../src/store/index.js';

export const until = (probe: () => unknown, what: string) =>
  waitFor(probe, { what, timeoutMs: 20_000, intervalMs: 5 });

/** The store as the scheduler sees it, in memory; records every cursor batch it is given. */
export class MemoryDeliveryStore implements DeliveryStore {
  readonly topics = new Map<number, TopicRecord>();
  readonly subs = new Map<number, Subscription>();
  readonly notifications = new Map<string, StoredNotification>();
  readonly batches: CursorUpdate[][] = [];
  readonly removed: number[] = [];

  addTopic(id: number): void {
    this.topics.set(id, { id, url: `http://source.test/t${id}`, lastSeq: 0 });
  }

  addSubscription(id: number, topicId: number, callback: string): Subscription {
    const s: Subscription = {
      id,
      topicId,
      topicUrl: this.topics.get(topicId)!.url,
      topicAsGiven: this.topics.get(topicId)!.url,
      callback,
      secret: undefined,
      algorithm: 'sha256',
      leaseSeconds: 86_400,
      leaseExpiresAt: Number.MAX_SAFE_INTEGER,
      deliveredSeq: this.topics.get(topicId)!.lastSeq,
      nextAttemptAt: 0,
      attempts: 0,
      firstFailedAt: undefined,
      lastStatus: undefined,
      lastError: undefined,
    };
    this.subs.set(id, s);
    return s;
  }

  append(topicId: number, now: number): StoredNotification {
    const t = this.topics.get(topicId)!;
    const n: StoredNotification = {
      topicId,
      seq: t.lastSeq + 1,
      receivedAt: now,
      contentType: 'application/xml',
      linkHeader: `<${t.url}>; rel="self", <http://hub.test/hub>; rel="hub"`,
      body: Buffer.from(`<n seq="${t.lastSeq + 1}"/>`),
    };
    this.topics.set(topicId, { ...t, lastSeq: n.seq });
    this.notifications.set(`${topicId}:${n.seq}`, n);
    return n;
  }

  /** The cursor as last written for a subscription. */
  cursor(id: number): CursorUpdate | undefined {
    for (let i = this.batches.length - 1; i >= 0; i--) {
      const u = [...this.batches[i]!].reverse().find((x) => x.subscriptionId === id);
      if (u) return u;
    }
    return undefined;
  }

  givenUp(): NonNullable<CursorUpdate['givenUp']>[] {
    return this.batches.flat().flatMap((u) => (u.givenUp ? [u.givenUp] : []));
  }

  listTopics(): Promise<TopicRecord[]> {
    return Promise.resolve([...this.topics.values()]);
  }
  listSubscriptions(): Promise<Subscription[]> {
    return Promise.resolve([...this.subs.values()]);
  }
  /** Reads of a notification row (a cache miss). */
  reads = 0;
  getNotification(topicId: number, seq: number): Promise<StoredNotification | undefined> {
    this.reads++;
    return Promise.resolve(this.notifications.get(`${topicId}:${seq}`));
  }
  saveCursors(updates: readonly CursorUpdate[]): Promise<void> {
    this.batches.push([...updates]);
    return Promise.resolve();
  }
  removeSubscriptionById(id: number): Promise<void> {
    this.removed.push(id);
    this.subs.delete(id);
    return Promise.resolve();
  }
}

interface Sent {
  readonly callback: string;
  readonly seq: number;
}

/**
 * The callback side: records each POST and answers with `answer(callback, seq, attempt)`. Answers
 * resolve after a few turns of the event loop (varied), so deliveries genuinely overlap.
 */
export class FakeSender {
  readonly sent: Sent[] = [];
  private readonly inFlight = new Map<string, number>();
  maxInFlightPerCallback = 0;

  constructor(private answer: (callback: string, seq: number) => DeliveryOutcome) {}

  script(answer: (callback: string, seq: number) => DeliveryOutcome): void {
    this.answer = answer;
  }

  readonly send = async (
    target: DeliveryTarget,
    _headers: Record<string, string>,
    body: Buffer,
  ): Promise<DeliveryOutcome> => {
    const callback = `${target.origin}${target.path}`;
    const seq = Number(/seq="(\d+)"/.exec(body.toString('utf8'))![1]);
    const now = (this.inFlight.get(callback) ?? 0) + 1;
    this.inFlight.set(callback, now);
    this.maxInFlightPerCallback = Math.max(this.maxInFlightPerCallback, now);
    this.sent.push({ callback, seq });
    for (let i = 0; i < 1 + (seq % 4); i++) await new Promise((r) => setImmediate(r));
    this.inFlight.set(callback, this.inFlight.get(callback)! - 1);
    return this.answer(callback, seq);
  };

  seqsTo(callback: string): number[] {
    return this.sent.filter((s) => s.callback === callback).map((s) => s.seq);
  }
}

export const ok: DeliveryOutcome = { kind: 'delivered', status: 204 };
export const serverError: DeliveryOutcome = { kind: 'failed', status: 500 };
export const refused: DeliveryOutcome = { kind: 'failed', code: 'ECONNREFUSED' };

/**
 * A scheduler with the tests' fixed parts (16 in flight, metrics that count nothing, an `info`
 * logger into `logSink`) over the store and sender given: the rig's fakes, or the real ones.
 */
export function schedulerOn(
  deps: Omit<SchedulerDeps, 'logger' | 'metrics' | 'maxInFlight'> & {
    readonly logSink: { write(chunk: string): void };
  },
): DeliveryScheduler {
  const { logSink, ...rest } = deps;
  return new DeliveryScheduler({
    ...rest,
    logger: createLogger('info', logSink),
    metrics: new HubMetrics({
      subscriptionCounts: () => Promise.resolve({ active: 0, expired: 0, pending: 0 }),
      queueDepth: () => 0,
      inFlight: () => 0,
    }),
    maxInFlight: 16,
  });
}

export interface RigOptions {
  retry?: RetryPolicy;
  breaker?: { failureThreshold: number; openMs: number; maxOpenMs: number };
  answer?: (callback: string, seq: number) => DeliveryOutcome;
  flushDelayMs?: number;
  /** Wraps the fake sender (a sender that throws or rejects). */
  wrapSend?: (send: FakeSender['send']) => FakeSender['send'];
}

export function rig(options: RigOptions) {
  const store = new MemoryDeliveryStore();
  const sender = new FakeSender(options.answer ?? (() => ok));
  let now = 1_000_000;
  const log = logLines();
  const random = () => 0.5;
  const cache = new NotificationCache(1024 * 1024);
  const retry = options.retry ?? { initialDelayMs: 10, maxDelayMs: 80, maxAgeMs: 1_000_000 };
  const scheduler = schedulerOn({
    store,
    send: options.wrapSend ? options.wrapSend(sender.send) : sender.send,
    cache,
    logSink: log.sink,
    retry,
    now: () => now,
    random,
    flushDelayMs: options.flushDelayMs ?? 1,
    ...(options.breaker ? { originBudget: { breaker: options.breaker } } : {}),
  });
  return {
    store,
    sender,
    scheduler,
    cache,
    /** The events logged so far, in order. */
    get events(): string[] {
      return log.events.map((e) => String(e.event));
    },
    retry,
    random,
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
    publish(topicId: number) {
      scheduler.published(store.append(topicId, now));
    },
  };
}

/** A started rig with topic 1 and one subscription to it (id 1, http://a.test/cb), closed after the test. */
export async function startedWithOneSubscription(
  t: { after(fn: () => unknown): void },
  options: RigOptions = {},
): Promise<ReturnType<typeof rig>> {
  const r = rig(options);
  t.after(() => r.scheduler.close(0));
  r.store.addTopic(1);
  r.store.addSubscription(1, 1, 'http://a.test/cb');
  await r.scheduler.start();
  return r;
}
