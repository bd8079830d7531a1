// What `status` shows for one source: built from the store's records plus, inside the daemon, the
// live ordering figures; and its human-readable form for the CLI.
import { parseDateTime } from '@rsnotify/shared';
import {
  catchUpStatus,
  describeCatchUp,
  describeGap,
  describeReconciliation,
  gapStatus,
  reconciliationStatus,
  type CatchUpStatus,
  type GapStatus,
  type ReconciliationStatus,
} from './activity.js';
import type { SourceRecord, SubscriberRepository, SubscriptionRecord } from '../store/index.js';

export interface SourceStatus {
  readonly name: string;
  /** 'push' with a channel, 'poll' on the Change List, 'unknown' before discovery succeeded. */
  readonly mode: 'push' | 'poll' | 'unknown';
  readonly hub?: string;
  readonly topic?: string;
  readonly subscriptionState?: SubscriptionRecord['state'];
  /** ISO time. */
  readonly leaseExpiresAt?: string;
  readonly renewAt?: string;
  /** Lexical `until` of the last interval really applied. */
  readonly syncedUntil?: string;
  /** Newest `until` received minus `syncedUntil`, in ms (0 when nothing is pending). */
  readonly lagMs: number;
  /** Notifications stored but not yet applied (waiting for a gap to close, or being applied). */
  readonly buffered: number;
  /** Gaps detected between notifications (RN-5) since the source was added. */
  readonly gaps: number;
  /** ISO time the gap being caught up now was opened (absent when none is open). */
  readonly gapOpenSince?: string;
  readonly lastGap?: GapStatus;
  readonly catchUps: number;
  readonly lastCatchUp?: CatchUpStatus;
  /** The last reconciliation with the Resource List (periodic or `audit --repair`). */
  readonly lastReconciliation?: ReconciliationStatus;
  /** Changes from notifications and catch-ups carried out on the mirror (files written or removed); the baseline shows in `resources`. */
  readonly changesApplied: number;
  /** Changes that failed to apply (hash/length mismatch, fetch failures), plus ignored deliveries. */
  readonly errors: number;
  readonly lastError?: string;
  readonly lastAppliedAt?: string;
  readonly resources: number;
  readonly ignoredDeliveries: number;
  readonly deniedReason?: string;
  readonly baselineAt?: string;
}

function iso(ms: number | undefined): string | undefined {
  return ms === undefined ? undefined : new Date(ms).toISOString();
}

function safeMs(lexical: string | undefined): number | undefined {
  if (!lexical) return undefined;
  try {
    return parseDateTime(lexical).epochMs;
  } catch {
    return undefined;
  }
}

/** The subscription that speaks for the source: the newest active one, else the newest record. */
export function representativeSubscription(
  subs: readonly SubscriptionRecord[],
): SubscriptionRecord | undefined {
  const active = subs.filter((s) => s.state === 'active').sort((a, b) => b.id - a.id)[0];
  return active ?? [...subs].sort((a, b) => b.id - a.id)[0];
}

export interface LiveFigures {
  readonly buffered?: number;
  readonly newestUntilMs?: number;
  readonly lastError?: string;
}

export async function sourceStatus(
  repo: SubscriberRepository,
  source: SourceRecord,
  live: LiveFigures = {},
): Promise<SourceStatus> {
  const [subs, pos, counters, activity, lastCatchUp] = await Promise.all([
    repo.listSubscriptions(source.id),
    repo.getPosition(source.id),
    repo.counters(source.id),
    repo.activity(source.id),
    repo.lastCatchUp(source.id),
  ]);
  const lastGap = gapStatus(activity);
  const catchUp = catchUpStatus(lastCatchUp);
  const reconciliation = reconciliationStatus(activity.lastReconciliation);
  const sub = representativeSubscription(subs);
  const syncedMs = safeMs(pos?.syncedUntil);
  const newest = live.newestUntilMs ?? safeMs(counters.newestUntil);
  const lagMs =
    syncedMs !== undefined && newest !== undefined ? Math.max(0, Math.round(newest - syncedMs)) : 0;
  const lastError =
    live.lastError ??
    source.lastError ??
    (sub?.state === 'denied' ? `denied by hub: ${sub.deniedReason ?? ''}` : sub?.lastError);
  const out: SourceStatus = {
    name: source.name,
    mode: source.mode,
    ...(source.hub ? { hub: source.hub } : {}),
    ...(source.topic ? { topic: source.topic } : {}),
    ...(sub ? { subscriptionState: sub.state } : {}),
    ...(sub?.state === 'active' && sub.leaseExpiresAt !== undefined
      ? { leaseExpiresAt: iso(sub.leaseExpiresAt)! }
      : {}),
    ...(sub?.state === 'active' && sub.renewAt !== undefined ? { renewAt: iso(sub.renewAt)! } : {}),
    ...(pos?.syncedUntil ? { syncedUntil: pos.syncedUntil } : {}),
    lagMs,
    // The store's open rows are the truth (updated within one tick of every step); the daemon's
    // in-memory buffer undercounts while it replays rows stored before the position was established.
    buffered: Math.max(live.buffered ?? 0, counters.openInbox),
    gaps: activity.gaps,
    ...(pos?.gapOpenedAt !== undefined ? { gapOpenSince: iso(pos.gapOpenedAt)! } : {}),
    ...(lastGap ? { lastGap } : {}),
    catchUps: counters.catchUps,
    ...(catchUp ? { lastCatchUp: catchUp } : {}),
    ...(reconciliation ? { lastReconciliation: reconciliation } : {}),
    changesApplied: counters.appliedEvents,
    errors: counters.failedEvents + source.ignoredDeliveries,
    ...(lastError ? { lastError } : {}),
    ...(pos?.lastAppliedAt !== undefined ? { lastAppliedAt: iso(pos.lastAppliedAt)! } : {}),
    resources: counters.resources,
    ignoredDeliveries: source.ignoredDeliveries,
    ...(sub?.state === 'denied' ? { deniedReason: sub.deniedReason ?? '' } : {}),
    ...(pos?.baselineAt ? { baselineAt: pos.baselineAt } : {}),
  };
  return out;
}

/** Human-readable status, one block per source. */
export function formatStatus(statuses: readonly SourceStatus[]): string {
  if (statuses.length === 0) return 'no sources\n';
  const lines: string[] = [];
  for (const s of statuses) {
    lines.push(
      `${s.name}  (${s.mode}${s.subscriptionState ? `, subscription ${s.subscriptionState}` : ''})`,
    );
    const row = (k: string, v: string | number | undefined): void => {
      if (v !== undefined && v !== '') lines.push(`  ${k.padEnd(15)} ${v}`);
    };
    row('hub', s.hub);
    row('topic', s.topic);
    row('lease expires', s.leaseExpiresAt);
    row('renew at', s.renewAt);
    row('syncedUntil', s.syncedUntil ?? '(not yet)');
    row('lag', `${s.lagMs} ms`);
    row('buffered', s.buffered);
    row('gaps', s.gaps);
    row('gap open since', s.gapOpenSince);
    row('last gap', s.lastGap && describeGap(s.lastGap));
    row('catch-ups', s.catchUps);
    row('last catch-up', s.lastCatchUp && describeCatchUp(s.lastCatchUp));
    row('reconciled', s.lastReconciliation && describeReconciliation(s.lastReconciliation));
    row('applied', s.changesApplied);
    row('resources', s.resources);
    row('last applied', s.lastAppliedAt);
    row('errors', s.errors);
    row('last error', s.lastError);
    row('denied', s.deniedReason);
    lines.push('');
  }
  return lines.join('\n');
}
