// The poll-to-push bridge: polls each bridged Source's Change List (Index) once per interval, turns
// new entries into change notifications on a topic the hub owns, stores them exactly like published
// ones (durable, ordered, one transaction with the position that made them) and hands them to
// delivery, so N subscribers cost the Source one poll per interval.
import type { Dispatcher } from 'undici';
import {
  checkOutboundUrl,
  describeError,
  discoverSource,
  pageFetcherFrom,
  type OutboundPolicy,
} from '@rsnotify/shared';
import type { Logger } from '../observability/index.js';
import type {
  BridgedSourceRecord,
  BridgePosition,
  BridgeRepository,
  StoredNotification,
} from '../store/index.js';
import { advance, isInitial } from './coverage.js';
import { BridgeHttpError, SourceGetter } from './http.js';
import { BridgeError, readChangeLists } from './read.js';
import { buildNotifications } from './notifications.js';
import { nextPollAt } from './schedule.js';
import { BridgeMetrics } from './metrics.js';
import type { Registry } from 'prom-client';

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

/** `{hubUrl}/bridge/{name}`: the topic URL of a bridged Source. */
export function bridgedTopicUrl(hubUrl: string, name: string): string {
  return `${hubUrl.replace(/\/+$/, '')}/bridge/${encodeURIComponent(name)}`;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function checkBridgeName(name: string): void {
  if (!NAME.test(name))
    throw new BridgeError(
      'RSN_BRIDGE_BAD_NAME',
      `bridged Source name ${JSON.stringify(name)}: letters, digits, . _ - (max 64)`,
      { name },
    );
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

  async start(): Promise<void> {
    await this.refresh();
  }

  /** Picks up Sources another connection (the CLI) added or removed while the hub runs. */
  async refresh(): Promise<void> {
    if (this.closed) return;
    const records = await this.deps.store.listBridgedSources();
    const names = new Set(records.map((r) => r.name));
    for (const name of [...this.pollers.keys()]) if (!names.has(name)) this.untrack(name);
    for (const r of records) {
      const p = this.pollers.get(r.name);
      if (p && p.record.id !== r.id) this.untrack(r.name);
      if (!this.pollers.has(r.name)) this.track(r, 0);
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
    if (!this.pollers.has(name)) this.track(record, 0);
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
    const want = normalise(sourceUrl);
    for (const r of await this.deps.store.listBridgedSources()) {
      const p = r.position;
      if (
        [r.pollUrl, p.capabilityListUrl, p.changeListUrl].some(
          (u) => u !== undefined && normalise(u) === want,
        )
      )
        return this.view(r);
    }
    return undefined;
  }

  /** The newest notification of a bridged topic (RT-3: the topic URL serves it), if any since start. */
  latest(name: string): Buffer | undefined {
    return this.pollers.get(name)?.latest;
  }

  has(name: string): boolean {
    return this.pollers.has(name);
  }

  async close(): Promise<void> {
    this.closed = true;
    const running: Promise<void>[] = [];
    for (const p of this.pollers.values()) {
      if (p.timer) clearTimeout(p.timer);
      if (p.running) running.push(p.running);
    }
    await Promise.all(running);
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

  private track(record: BridgedSourceRecord, delayMs: number): void {
    const poller: Poller = { record, failures: 0 };
    this.pollers.set(record.name, poller);
    this.schedule(poller, delayMs);
  }

  private untrack(name: string): void {
    const p = this.pollers.get(name);
    if (p?.timer) clearTimeout(p.timer);
    this.pollers.delete(name);
  }

  private schedule(poller: Poller, delayMs: number): void {
    if (this.closed || this.pollers.get(poller.record.name) !== poller) return;
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
      const published = await this.poll(poller, log);
      poller.failures = 0;
      this.metrics.polls.inc({ result: 'ok' });
      if (published > 0) this.metrics.published.inc(published);
    } catch (err) {
      poller.failures++;
      const e = describeError(err);
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
    const url = poller.record.position.changeListUrl ?? poller.record.pollUrl;
    const at = nextPollAt({
      now: this.deps.now(),
      startedAt,
      intervalMs: poller.record.intervalMs,
      failures: poller.failures,
      random: this.deps.random(),
      ...(this.http.notBefore(url) !== undefined ? { notBefore: this.http.notBefore(url)! } : {}),
    });
    this.schedule(poller, at - this.deps.now());
  }

  /** One poll; returns how many notifications it stored. */
  private async poll(poller: Poller, log: Logger): Promise<number> {
    let position = poller.record.position;
    const rediscoverMs = this.deps.rediscoverMs ?? 24 * 3_600_000;
    if (!position.changeListUrl || this.deps.now() - (position.discoveredAt ?? 0) > rediscoverMs) {
      position = await this.discover(poller.record, position, log);
    }
    const indexUrl = position.changeListUrl!;
    const read = await readChangeLists(this.http, position, this.deps.maxDocumentBytes);
    if (read.kind === 'gone') {
      // The Change List moved: discover again on the next poll.
      await this.deps.store.commitPoll(
        poller.record.id,
        { ...position, discoveredAt: 0 },
        [],
        this.deps.now(),
      );
      throw new BridgeError('RSN_BRIDGE_NO_CHANGELIST', `GET ${indexUrl}: HTTP ${read.status}`, {
        url: indexUrl,
      });
    }
    position = read.position;
    const { refs, fetched, plainList } = read;
    const wasInitial = isInitial(position);
    const outcome = advance(position, refs, fetched);
    let next = outcome.position;
    // A plain Change List is re-read every poll, `until` or not (it is the only list there is).
    if (plainList) next = { ...next, lists: next.lists.map((l) => ({ ...l, complete: false })) };
    for (const g of outcome.gaps) {
      this.metrics.gaps.inc();
      log.warn(
        { event: 'bridge.coverage_gap', source: indexUrl, from: g.from?.lexical, to: g.to.lexical },
        'the Change Lists do not prove this interval; the next notification starts after it',
      );
    }
    for (const url of outcome.rewritten)
      log.warn(
        { event: 'bridge.list_rewritten', url },
        'a Change List changed entries already read; new entries taken by time',
      );
    const now = this.deps.now();
    const notifications = buildNotifications(outcome.segments, {
      topicUrl: this.topicFor(poller.record.name),
      hubUrl: this.deps.hubUrl(),
      capabilityListUrl: next.capabilityListUrl,
      receivedAt: now,
      maxEntries: this.deps.maxEntriesPerNotification,
      maxBytes: this.deps.maxNotificationBytes,
    });
    const stored = await this.deps.store.commitPoll(poller.record.id, next, notifications, now);
    poller.record = { ...poller.record, position: next, lastPollAt: now, lastError: undefined };
    stored.forEach((s, i) => {
      const n = notifications[i]!;
      poller.latest = n.body;
      this.deps.onAccepted({
        topicId: s.topicId,
        seq: s.seq,
        receivedAt: n.receivedAt,
        contentType: n.contentType,
        linkHeader: n.linkHeader,
        body: n.body,
      });
    });
    if (wasInitial && next.coveredTo)
      log.info(
        { event: 'bridge.started', source: indexUrl, coveredTo: next.coveredTo },
        'bridge publishes changes from here on',
      );
    if (stored.length > 0) {
      const entries = outcome.segments.reduce((n, s) => n + s.entries.length, 0);
      log.info(
        {
          event: 'bridge.published',
          topic: this.topicFor(poller.record.name),
          notifications: stored.length,
          entries,
          until: next.coveredTo,
        },
        'bridged changes published',
      );
    }
    return stored.length;
  }

  private async discover(
    record: BridgedSourceRecord,
    position: BridgePosition,
    log: Logger,
  ): Promise<BridgePosition> {
    checkOutboundUrl(record.pollUrl, this.deps.outbound);
    let d: Awaited<ReturnType<typeof discoverSource>>;
    try {
      d = await discoverSource(
        record.pollUrl,
        pageFetcherFrom(this.http, {
          maxBytes: this.deps.maxDocumentBytes,
          timeoutMs: this.deps.requestTimeoutMs,
        }),
      );
    } catch (err) {
      // Say why the first document could not be read (refused address, status, ...), not only that none was.
      const steps =
        (err as { details?: { steps?: { url: string; note: string }[] } }).details?.steps ?? [];
      if (steps[0])
        throw new BridgeError(
          'RSN_BRIDGE_NO_CHANGELIST',
          `${describeError(err).message}; ${steps[0].url}: ${steps[0].note}`,
          { url: record.pollUrl },
        );
      throw err;
    }
    if (!d.changeListUrl)
      throw new BridgeError(
        'RSN_BRIDGE_NO_CHANGELIST',
        `${d.capabilityListUrl} lists no Change List`,
        { url: record.pollUrl },
      );
    log.info(
      {
        event: 'bridge.discovered',
        source: record.pollUrl,
        capabilityList: d.capabilityListUrl,
        changeList: d.changeListUrl,
      },
      'bridged Source discovered',
    );
    const moved =
      position.changeListUrl !== undefined && position.changeListUrl !== d.changeListUrl;
    // A moved Change List: coverage stays (it is about time, not URLs), list positions start over.
    return {
      ...position,
      capabilityListUrl: d.capabilityListUrl,
      changeListUrl: d.changeListUrl,
      discoveredAt: this.deps.now(),
      ...(moved ? { lists: [], indexEtag: undefined, indexLastModified: undefined } : {}),
    };
  }
}

function normalise(url: string): string {
  try {
    const u = new URL(url);
    u.hash = '';
    return u.href.replace(/\/+$/, '');
  } catch {
    return url;
  }
}

function checkPollUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new BridgeError(
      'RSN_BRIDGE_BAD_URL',
      `poll URL ${JSON.stringify(url)} is not an absolute URL`,
      { url },
    );
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new BridgeError('RSN_BRIDGE_BAD_URL', `poll URL ${url} must be http(s)`, { url });
  return u.href;
}

function checkInterval(ms: number): number {
  if (!Number.isInteger(ms) || ms < 100)
    throw new BridgeError(
      'RSN_BRIDGE_BAD_INTERVAL',
      `poll interval must be at least 100 ms, not ${ms}`,
      { ms },
    );
  return ms;
}
