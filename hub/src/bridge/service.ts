// The poll-to-push bridge: polls each bridged Source's Change List (Index) once per interval, turns
// new entries into change notifications on a topic the hub owns, stores them exactly like published
// ones (durable, ordered, one transaction with the position that made them) and hands them to
// delivery, so N subscribers cost the Source one poll per interval.
// Every hub process keeps the registry (add, list, lookup); only the process that runs the
// once-per-cluster jobs polls (startPolling/stopPolling, driven by the cluster leader with
// PostgreSQL), and the store's generation check keeps a hand-over from publishing anything twice.
import type { Dispatcher } from 'undici';
import { describeError, type OutboundPolicy } from '@rsnotify/shared';
import type { Registry } from 'prom-client';
import type { Logger } from '../observability/index.js';
import type { BridgedSourceRecord, BridgeRepository, StoredNotification } from '../store/index.js';
import { BridgeHttpError, SourceGetter } from './http.js';
import { nextPollAt } from './schedule.js';
import { BridgeMetrics } from './metrics.js';
import { pollSource, type PollContext } from './poll.js';
import {
  bridgedTopicUrl,
  checkBridgeName,
  checkInterval,
  checkPollUrl,
  sourceUrlKey,
} from './names.js';

export interface BridgeDeps {
  readonly store: BridgeRepository;
  readonly agent: Dispatcher;
  readonly logger: Logger;
  readonly registry: Registry;
  readonly outbound: OutboundPolicy;
  readonly now: () => number;
  readonly random: () => number;
  /** The hub endpoint URL; bridged topics are `{hubUrl}/bridge/{name}`. */
  readonly hubUrl: () => string;
  readonly onAccepted: (n: StoredNotification) => void;
  readonly requestTimeoutMs: number;
  readonly maxDocumentBytes: number;
  readonly maxEntriesPerNotification: number;
  readonly maxNotificationBytes: number;
  /** Discovery is repeated this often (and whenever the Change List is gone). */
  readonly rediscoverMs?: number;
}

export interface BridgedSourceView {
  readonly name: string;
  readonly pollUrl: string;
  readonly intervalMs: number;
  readonly topic: string;
  readonly capabilityListUrl?: string;
  readonly changeListUrl?: string;
  readonly coveredTo?: string;
  readonly lastPollAt?: number;
  readonly lastError?: string;
}

interface Poller {
  record: BridgedSourceRecord;
  timer?: NodeJS.Timeout;
  running?: Promise<void>;
  failures: number;
  latest?: Buffer;
}

export class BridgeService {
  private readonly pollers = new Map<string, Poller>();
  private readonly http: SourceGetter;
  private readonly metrics: BridgeMetrics;
  private polling = false;
  private closed = false;

  constructor(private readonly deps: BridgeDeps) {
    this.http = new SourceGetter({
      agent: deps.agent,
      outbound: deps.outbound,
      timeoutMs: deps.requestTimeoutMs,
      maxBytes: deps.maxDocumentBytes,
      now: deps.now,
    });
    this.metrics = new BridgeMetrics(deps.registry);
  }

  /** Requests sent to an origin so far (tests, bench). */
  requestsTo(origin: string): number {
    return this.http.sent.get(origin) ?? 0;
  }

  /** True while this process polls (the only hub process, or the cluster leader). */
  get isPolling(): boolean {
    return this.polling;
  }

  /** Loads the registry; polls too unless `poll: false` (a cluster member that is not the leader). */
  async start(options: { poll?: boolean } = {}): Promise<void> {
    await this.refresh();
    if (options.poll ?? true) await this.startPolling();
  }

  /**
   * This process becomes the poller. Each Source is polled when its interval since the last
   * committed poll (by whichever process) has run out, so a hand-over keeps one poll per interval.
   */
  async startPolling(): Promise<void> {
    if (this.closed || this.polling) return;
    this.polling = true;
    this.deps.logger.info(
      { event: 'bridge.polling_started', sources: this.pollers.size },
      'this process polls the bridged Sources',
    );
    await this.refresh();
    for (const p of this.pollers.values()) this.scheduleFirst(p);
  }

  /** Stops polling here (leadership lost or handed back); waits for a poll under way. */
  async stopPolling(): Promise<void> {
    if (this.polling)
      this.deps.logger.info({ event: 'bridge.polling_stopped' }, 'bridge polling stopped here');
    this.polling = false;
    const running: Promise<void>[] = [];
    for (const p of this.pollers.values()) {
      if (p.timer) clearTimeout(p.timer);
      p.timer = undefined;
      if (p.running) running.push(p.running);
    }
    await Promise.all(running);
  }

  /** Picks up Sources another connection (the CLI, another hub process) added or removed. */
  async refresh(): Promise<void> {
    if (this.closed) return;
    const records = await this.deps.store.listBridgedSources();
    const names = new Set(records.map((r) => r.name));
    for (const name of [...this.pollers.keys()]) if (!names.has(name)) this.untrack(name);
    for (const r of records) {
      const p = this.pollers.get(r.name);
      if (p && p.record.id !== r.id) this.untrack(r.name);
      if (!this.pollers.has(r.name)) this.track(r);
      else if (!p!.running) p!.record = r;
    }
  }

  /** `rsnotify-hub source add NAME --poll URL`, the admin console and the config file come here. */
  async add(
    name: string,
    pollUrl: string,
    intervalMs: number,
    options: { ensure?: boolean } = {},
  ): Promise<BridgedSourceView> {
    checkBridgeName(name);
    const s = {
      name,
      pollUrl: checkPollUrl(pollUrl),
      intervalMs: checkInterval(intervalMs),
      now: this.deps.now(),
    };
    const record = options.ensure
      ? await this.deps.store.ensureBridgedSource(s)
      : await this.deps.store.addBridgedSource(s);
    const existing = this.pollers.get(name);
    if (existing && existing.record.id !== record.id) this.untrack(name);
    if (!this.pollers.has(name)) this.track(record);
    else existing!.record = { ...existing!.record, intervalMs: record.intervalMs };
    this.deps.logger.info(
      {
        event: 'bridge.source_added',
        name,
        pollUrl,
        intervalMs: record.intervalMs,
        topic: this.topicFor(name),
      },
      'bridged Source registered',
    );
    return this.view(record);
  }

  async remove(name: string): Promise<boolean> {
    this.untrack(name);
    return this.deps.store.removeBridgedSource(name);
  }

  async list(): Promise<BridgedSourceView[]> {
    return (await this.deps.store.listBridgedSources()).map((r) => this.view(r));
  }

  topicFor(name: string): string {
    return bridgedTopicUrl(this.deps.hubUrl(), name);
  }

  /** The lookup endpoint: a bridged Source by any URL of it the hub knows. */
  async lookup(sourceUrl: string): Promise<BridgedSourceView | undefined> {
    const want = sourceUrlKey(sourceUrl);
    for (const r of await this.deps.store.listBridgedSources()) {
      const p = r.position;
      if (
        [r.pollUrl, p.capabilityListUrl, p.changeListUrl].some(
          (u) => u !== undefined && sourceUrlKey(u) === want,
        )
      )
        return this.view(r);
    }
    return undefined;
  }

  /** The newest notification of a bridged topic (RT-3), if this process made one since start. */
  latest(name: string): Buffer | undefined {
    return this.pollers.get(name)?.latest;
  }

  has(name: string): boolean {
    return this.pollers.has(name);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.stopPolling();
  }

  private view(r: BridgedSourceRecord): BridgedSourceView {
    const p = r.position;
    return {
      name: r.name,
      pollUrl: r.pollUrl,
      intervalMs: r.intervalMs,
      topic: this.topicFor(r.name),
      ...(p.capabilityListUrl ? { capabilityListUrl: p.capabilityListUrl } : {}),
      ...(p.changeListUrl ? { changeListUrl: p.changeListUrl } : {}),
      ...(p.coveredTo ? { coveredTo: p.coveredTo } : {}),
      ...(r.lastPollAt !== undefined ? { lastPollAt: r.lastPollAt } : {}),
      ...(r.lastError !== undefined ? { lastError: r.lastError } : {}),
    };
  }

  private track(record: BridgedSourceRecord): void {
    const poller: Poller = { record, failures: 0 };
    this.pollers.set(record.name, poller);
    if (this.polling) this.scheduleFirst(poller);
  }

  private scheduleFirst(p: Poller): void {
    if (p.timer || p.running) return;
    const last = p.record.lastPollAt;
    this.schedule(p, last === undefined ? 0 : last + p.record.intervalMs - this.deps.now());
  }

  private untrack(name: string): void {
    const p = this.pollers.get(name);
    if (p?.timer) clearTimeout(p.timer);
    this.pollers.delete(name);
  }

  private schedule(poller: Poller, delayMs: number): void {
    if (!this.polling || this.closed || this.pollers.get(poller.record.name) !== poller) return;
    poller.timer = setTimeout(
      () => {
        poller.timer = undefined;
        poller.running = this.pollOnce(poller).finally(() => {
          poller.running = undefined;
        });
      },
      Math.max(0, delayMs),
    );
    poller.timer.unref?.();
  }

  private context(name: string): PollContext {
    return {
      store: this.deps.store,
      http: this.http,
      outbound: this.deps.outbound,
      metrics: this.metrics,
      now: this.deps.now,
      hubUrl: this.deps.hubUrl(),
      topicUrl: this.topicFor(name),
      requestTimeoutMs: this.deps.requestTimeoutMs,
      maxDocumentBytes: this.deps.maxDocumentBytes,
      maxEntriesPerNotification: this.deps.maxEntriesPerNotification,
      maxNotificationBytes: this.deps.maxNotificationBytes,
      rediscoverMs: this.deps.rediscoverMs ?? 24 * 3_600_000,
    };
  }

  private async pollOnce(poller: Poller): Promise<void> {
    const startedAt = this.deps.now();
    const name = poller.record.name;
    const log = this.deps.logger.child({ bridge: name });
    try {
      const fresh = await this.deps.store.getBridgedSource(name);
      if (!fresh || fresh.id !== poller.record.id) {
        this.untrack(name);
        return;
      }
      poller.record = fresh;
      const { record, stored } = await pollSource(this.context(name), fresh, log);
      poller.record = record;
      for (const n of stored) {
        poller.latest = n.body;
        this.deps.onAccepted(n);
      }
      poller.failures = 0;
      this.metrics.polls.inc({ result: 'ok' });
      if (stored.length > 0) this.metrics.published.inc(stored.length);
    } catch (err) {
      const e = describeError(err);
      if (e.code === 'RSN_BRIDGE_POSITION_MOVED') {
        // Another process committed this Source meanwhile (a leadership hand-over): nothing was
        // stored here; the next poll starts from its position.
        this.metrics.polls.inc({ result: 'superseded' });
        log.info({ event: 'bridge.poll_superseded', source: poller.record.pollUrl }, e.message);
      } else {
        poller.failures++;
        this.metrics.polls.inc({
          result:
            err instanceof BridgeHttpError && err.status !== undefined
              ? `http_${err.status}`
              : 'failed',
        });
        log.warn(
          {
            event: 'bridge.poll_failed',
            source: poller.record.pollUrl,
            code: e.code,
            error: e.message,
            failures: poller.failures,
          },
          'bridge poll failed',
        );
        await this.deps.store
          .recordPollOutcome(poller.record.id, { at: this.deps.now(), error: e.message })
          .catch(() => undefined);
      }
    }
    const url = poller.record.position.changeListUrl ?? poller.record.pollUrl;
    const notBefore = this.http.notBefore(url);
    const at = nextPollAt({
      now: this.deps.now(),
      startedAt,
      intervalMs: poller.record.intervalMs,
      failures: poller.failures,
      random: this.deps.random(),
      ...(notBefore !== undefined ? { notBefore } : {}),
    });
    this.schedule(poller, at - this.deps.now());
  }
}
