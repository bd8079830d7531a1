// One poll of one bridged Source: discovery when due, the Change List (Index) read conditionally,
// new entries turned into notifications, and the lot committed in one store transaction together
// with the position that produced it (so a restart, or another process taking over, resumes there).
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
import type { SourceGetter } from './http.js';
import { BridgeError, readChangeLists } from './read.js';
import { buildNotifications } from './notifications.js';
import type { BridgeMetrics } from './metrics.js';

export interface PollContext {
  readonly store: BridgeRepository;
  readonly http: SourceGetter;
  readonly outbound: OutboundPolicy;
  readonly metrics: BridgeMetrics;
  readonly now: () => number;
  readonly hubUrl: string;
  readonly topicUrl: string;
  readonly requestTimeoutMs: number;
  readonly maxDocumentBytes: number;
  readonly maxEntriesPerNotification: number;
  readonly maxNotificationBytes: number;
  readonly rediscoverMs: number;
}

export interface PollResult {
  /** The record as committed (position, generation, last poll). */
  readonly record: BridgedSourceRecord;
  /** The notifications stored, in seq order. */
  readonly stored: readonly StoredNotification[];
}

/** One poll; the record must be fresh from the store (its generation fences the commit). */
export async function pollSource(
  ctx: PollContext,
  record: BridgedSourceRecord,
  log: Logger,
): Promise<PollResult> {
  let position = record.position;
  if (!position.changeListUrl || ctx.now() - (position.discoveredAt ?? 0) > ctx.rediscoverMs) {
    position = await discover(ctx, record, position, log);
  }
  const indexUrl = position.changeListUrl!;
  const read = await readChangeLists(ctx.http, position, ctx.maxDocumentBytes);
  if (read.kind === 'gone') {
    // The Change List moved: discover again on the next poll.
    await ctx.store.commitPoll(record.id, {
      generation: record.generation,
      position: { ...position, discoveredAt: 0 },
      notifications: [],
      now: ctx.now(),
    });
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
    ctx.metrics.gaps.inc();
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
  const now = ctx.now();
  const notifications = buildNotifications(outcome.segments, {
    topicUrl: ctx.topicUrl,
    hubUrl: ctx.hubUrl,
    capabilityListUrl: next.capabilityListUrl,
    receivedAt: now,
    maxEntries: ctx.maxEntriesPerNotification,
    maxBytes: ctx.maxNotificationBytes,
  });
  const appended = await ctx.store.commitPoll(record.id, {
    generation: record.generation,
    position: next,
    notifications,
    now,
  });
  const stored = appended.map((s, i) => ({ ...notifications[i]!, topicId: s.topicId, seq: s.seq }));
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
        topic: ctx.topicUrl,
        notifications: stored.length,
        entries,
        until: next.coveredTo,
      },
      'bridged changes published',
    );
  }
  return {
    record: {
      ...record,
      position: next,
      lastPollAt: now,
      lastError: undefined,
      generation: record.generation + 1,
    },
    stored: stored.map(({ topicUrl: _t, ...n }) => n),
  };
}

async function discover(
  ctx: PollContext,
  record: BridgedSourceRecord,
  position: BridgePosition,
  log: Logger,
): Promise<BridgePosition> {
  checkOutboundUrl(record.pollUrl, ctx.outbound);
  let d: Awaited<ReturnType<typeof discoverSource>>;
  try {
    d = await discoverSource(
      record.pollUrl,
      pageFetcherFrom(ctx.http, {
        maxBytes: ctx.maxDocumentBytes,
        timeoutMs: ctx.requestTimeoutMs,
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
  const moved = position.changeListUrl !== undefined && position.changeListUrl !== d.changeListUrl;
  // A moved Change List: coverage stays (it is about time, not URLs), list positions start over.
  return {
    ...position,
    capabilityListUrl: d.capabilityListUrl,
    changeListUrl: d.changeListUrl,
    discoveredAt: ctx.now(),
    ...(moved ? { lists: [], indexEtag: undefined, indexLastModified: undefined } : {}),
  };
}
