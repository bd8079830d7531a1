// A SourceRunner driven without sockets: an in-memory Source (its documents served by a fake HTTP
// getter), a fake mirror that records what it is asked to apply, a manual clock that fires the
// runner's timers, a subscription shell that verifies at once, and the runner's log in memory.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from 'undici';
import { formatMillis, type Change } from '@rsnotify/shared';
import { changeNotificationXml, resourceSyncXml } from '@rsnotify/service-kit/testing';
import { resolveConfig } from '../src/config.js';
import { pageFetcherFrom } from '../src/discovery/index.js';
import type {
  ApplyResult,
  HttpGetter,
  HttpResponse,
  HttpStream,
  Mirror,
} from '../src/mirror/index.js';
import { createLogger, createMetrics } from '../src/observability/index.js';
import {
  SourceRunner,
  type Runtime,
  type SubscriptionPort,
  type Timers,
} from '../src/runner/index.js';
import {
  DEFAULT_LEASE_POLICY,
  planSubscription,
  renewAtFor,
  type SubscriptionAction,
} from '../src/subscription/index.js';
import type { SubscriptionRecord } from '../src/store/index.js';
import { MemoryRepository } from './runner-memory-repository.js';

export const BASE = 'http://src.test';
export const T0 = Date.parse('2026-01-01T00:00:00Z');
/** The lexical time `s` seconds after T0. */
export const at = (s: number): string => formatMillis(T0 + s * 1000);

const up = [{ rel: 'up', href: `${BASE}/capabilitylist.xml` }];

export interface Entry {
  readonly path: string;
  readonly change: 'created' | 'updated' | 'deleted';
  readonly s: number;
}
const urlEntry = (e: Entry) => ({
  loc: `${BASE}/r/${e.path}`,
  change: e.change,
  datetime: at(e.s),
});

export function capabilityListXml(hub: string | undefined): string {
  return resourceSyncXml({
    capability: 'capabilitylist',
    links: [{ rel: 'up', href: `${BASE}/.well-known/resourcesync` }],
    entries: [
      { loc: `${BASE}/resourcelist.xml`, capability: 'resourcelist' },
      { loc: `${BASE}/changelist.xml`, capability: 'changelist' },
      ...(hub
        ? [
            {
              loc: `${BASE}/notifications`,
              capability: 'change-notification',
              links: [{ rel: 'hub', href: hub }],
            },
          ]
        : []),
    ],
  });
}
export function resourceListXml(atS: number, paths: string[]): string {
  return resourceSyncXml({
    capability: 'resourcelist',
    md: { at: at(atS) },
    links: up,
    entries: paths.map((p) => ({ loc: `${BASE}/r/${p}`, lastmod: at(0) })),
  });
}
export function changeListXml(from: number, until: number | undefined, entries: Entry[]): string {
  return resourceSyncXml({
    capability: 'changelist',
    md: { from: at(from), ...(until !== undefined ? { until: at(until) } : {}) },
    links: up,
    entries: entries.map(urlEntry),
  });
}
export function notificationXml(from: number, until: number, entries: Entry[]): Buffer {
  return Buffer.from(
    changeNotificationXml({
      from: at(from),
      until: at(until),
      links: up,
      entries: entries.map(urlEntry),
    }),
  );
}

/** The Source's documents by URL; each GET is counted. */
export class FakeSource implements HttpGetter {
  readonly docs = new Map<string, string>();
  readonly gets: string[] = [];
  /** Date header of the responses (RC-22: an open list proves coverage up to it). */
  dateMs?: number;

  serve(path: string, body: string): void {
    this.docs.set(`${BASE}${path}`, body);
  }
  private answer(url: string): HttpResponse {
    this.gets.push(url);
    const body = this.docs.get(url);
    const headers = {
      'content-type': 'application/xml',
      ...(this.dateMs !== undefined ? { date: new Date(this.dateMs).toUTCString() } : {}),
      ...(url === `${BASE}/notifications` ? { link: `<${url}>; rel="self"` } : {}),
    };
    return body === undefined
      ? { url, status: 404, headers, body: Buffer.alloc(0) }
      : { url, status: 200, headers, body: Buffer.from(body) };
  }
  async get(url: string): Promise<HttpResponse> {
    return this.answer(url);
  }
  async stream(url: string): Promise<HttpStream> {
    const r = this.answer(url);
    return {
      ...r,
      body: (async function* () {
        yield r.body;
      })(),
      dump: async () => undefined,
    };
  }
  async close(): Promise<void> {}
}

/** Records every change it is asked to apply and what the "mirror" holds; failures on demand. */
export class FakeMirror implements Mirror {
  readonly applied: Change[] = [];
  readonly files = new Map<string, string>();
  readonly failing = new Set<string>();

  async apply(changes: readonly Change[]): Promise<ApplyResult[]> {
    return changes.map((c) => {
      const base = { uri: c.uri, change: c.change, ...(c.time ? { time: c.time } : {}) };
      if (this.failing.has(c.uri))
        return {
          ...base,
          outcome: 'failed',
          error: { code: 'RSN_HTTP_STATUS', message: '503', status: 503 },
        };
      this.applied.push(c);
      if (c.change === 'deleted') {
        this.files.delete(c.uri);
        return { ...base, outcome: 'deleted' };
      }
      this.files.set(c.uri, c.time?.lexical ?? '');
      return { ...base, outcome: 'written' };
    });
  }
  async close(): Promise<void> {}
  /** The paths applied, in order (`created a`, ...). */
  summary(): string[] {
    return this.applied.map((c) => `${c.change} ${c.uri.slice(`${BASE}/r/`.length)}`);
  }
}

/** Timers fired by advancing a manual clock; the runner settles after each. */
export class ManualClock implements Timers {
  now = T0;
  private seq = 0;
  private timers: { id: number; at: number; fn: () => void }[] = [];

  set(delayMs: number, fn: () => void): unknown {
    const id = ++this.seq;
    this.timers.push({ id, at: this.now + delayMs, fn });
    return id;
  }
  clear(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }
  /** Fires, in time order, every timer due within `ms`, letting the runner settle after each. */
  async advance(ms: number, settle: () => Promise<void>): Promise<void> {
    const end = this.now + ms;
    for (;;) {
      const due = this.timers
        .filter((t) => t.at <= end)
        .sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.now = Math.max(this.now, due.at);
      due.fn();
      await settle();
    }
    this.now = end;
  }
}

/** The subscription shell with a hub that verifies at once (the lease counts from then, WS-9). */
export class InstantHub implements SubscriptionPort {
  readonly actions: { at: number; action: SubscriptionAction }[] = [];
  onVerified?: (rec: SubscriptionRecord) => void;

  constructor(
    private readonly repo: MemoryRepository,
    private readonly clock: ManualClock,
    private readonly leaseSeconds: number,
  ) {}

  async plan(sourceId: number, target: Parameters<SubscriptionPort['plan']>[1], disabled: boolean) {
    return planSubscription({
      ...(target ? { target } : {}),
      disabled,
      subs: await this.repo.listSubscriptions(sourceId),
      now: this.clock.now,
      policy: DEFAULT_LEASE_POLICY,
      random: () => 0.5,
    });
  }

  async execute(
    sourceId: number,
    target: Parameters<SubscriptionPort['execute']>[1],
    actions: readonly SubscriptionAction[],
  ): Promise<void> {
    const now = this.clock.now;
    for (const action of actions) {
      this.actions.push({ at: now, action });
      if (action.kind === 'subscribe' && target) {
        const rec = await this.repo.insertSubscription({
          sourceId,
          hub: target.hub,
          topic: target.topic,
          callbackToken: `t${this.actions.length}`,
          callbackUrl: `http://cb.test/callback/t${this.actions.length}`,
          state: 'active',
          requestedAt: now,
          verifiedAt: now,
          leaseSeconds: this.leaseSeconds,
          leaseExpiresAt: now + this.leaseSeconds * 1000,
          renewAt: renewAtFor(now, this.leaseSeconds),
          attempt: action.attempt,
          ...(action.renewsId !== undefined ? { renewsId: action.renewsId } : {}),
        });
        this.onVerified?.(rec);
      } else if (action.kind === 'unsubscribe')
        await this.repo.updateSubscription(action.subscriptionId, { state: 'unsubscribed' });
      else if (action.kind === 'expire')
        await this.repo.updateSubscription(action.subscriptionId, { state: 'expired' });
      else if (action.kind === 'abandon')
        await this.repo.updateSubscription(action.subscriptionId, { state: 'abandoned' });
    }
  }

  kinds(): string[] {
    return this.actions.map(({ action: a }) =>
      a.kind === 'subscribe'
        ? `subscribe:${a.reason}`
        : a.kind === 'unsubscribe'
          ? `unsubscribe:${a.why}`
          : a.kind,
    );
  }
}

export interface RunnerRig {
  readonly runner: SourceRunner;
  readonly repo: MemoryRepository;
  readonly source: FakeSource;
  readonly mirror: FakeMirror;
  readonly clock: ManualClock;
  readonly hub: InstantHub;
  readonly metrics: ReturnType<typeof createMetrics>;
  /** Log events so far (optionally only the named ones). */
  events(...names: string[]): Record<string, unknown>[];
  /** Advances the manual clock, firing due timers, and lets the runner settle. */
  advance(ms: number): Promise<void>;
  syncedUntil(): Promise<string | undefined>;
  /** Stores a notification in the inbox and hands it to the runner, as the intake does. */
  deliver(from: number, until: number, entries: Entry[]): Promise<number>;
  /** The same without waiting for the runner to settle (a burst). */
  handOver(from: number, until: number, entries: Entry[]): Promise<number>;
}

export async function runnerRig(
  options: {
    withSubscription?: boolean;
    leaseSeconds?: number;
    hub?: string;
    queuedDeliveryBytes?: number;
  } = {},
): Promise<RunnerRig> {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('debug', {
    write: (s: string) => {
      for (const l of s.split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
    },
  });
  const cfg = resolveConfig({
    dataDir: join(tmpdir(), 'rsn-runner-unit'),
    sources: [
      {
        name: 'src',
        url: `${BASE}/capabilitylist.xml`,
        mirrorDir: join(tmpdir(), 'rsn-runner-unit-mirror'),
        gapTimeout: '1s',
        pollInterval: '10s',
        reconcileInterval: 0,
        leaseSeconds: options.leaseSeconds ?? 100,
        ...(options.queuedDeliveryBytes
          ? { queuedDeliveryBytes: options.queuedDeliveryBytes }
          : {}),
      },
    ],
  });
  const repo = new MemoryRepository();
  const source = new FakeSource();
  source.serve('/capabilitylist.xml', capabilityListXml(options.hub));
  const mirror = new FakeMirror();
  const clock = new ManualClock();
  const hub = new InstantHub(repo, clock, options.leaseSeconds ?? 100);
  const metrics = createMetrics();
  const rt: Runtime = {
    cfg,
    repo,
    logger,
    metrics,
    http: source,
    fetcher: pageFetcherFrom(source),
    hubAgent: undefined as unknown as Agent, // only hooks use it; none are configured
    clock: () => clock.now,
    startedAtMs: Date.now(),
    random: () => 0.5,
    leasePolicy: DEFAULT_LEASE_POLICY,
    timers: clock,
    createMirror: () => mirror,
    subscriptions: hub,
  };
  const runner = new SourceRunner(rt, cfg.sources[0]!, options.withSubscription ?? false);
  await runner.init();
  hub.onVerified = (rec) => runner.subscriptionChanged(rec);
  const handOver = async (from: number, until: number, entries: Entry[]): Promise<number> => {
    const body = notificationXml(from, until, entries);
    const id = await repo.insertInbox({
      sourceId: runner.sourceId,
      receivedAt: clock.now,
      body,
      signature: 'unsigned',
    });
    runner.delivered(id, body, clock.now);
    return id;
  };
  return {
    runner,
    repo,
    source,
    mirror,
    clock,
    hub,
    metrics,
    events: (...names) =>
      names.length === 0 ? [...lines] : lines.filter((l) => names.includes(String(l.event))),
    advance: (ms) => clock.advance(ms, () => runner.idle()),
    syncedUntil: async () => (await repo.getPosition(runner.sourceId))?.syncedUntil,
    handOver,
    deliver: async (from, until, entries) => {
      const id = await handOver(from, until, entries);
      await runner.idle();
      return id;
    },
  };
}
