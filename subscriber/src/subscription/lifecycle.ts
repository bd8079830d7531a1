// The subscription lifecycle as pure decisions over plain records (WebSub §5-§7; RT-13, WS-5..WS-10,
// WS-19). The clock and randomness come in as arguments; the shell (subscription/manager.ts) does the
// HTTP and the storing.
import { normaliseTopicUrl } from '@rsnotify/shared';
import type { SubscriptionRecord } from '../store/index.js';
import { backoff } from '@rsnotify/service-kit';

export interface LeasePolicy {
  /** Renew when this fraction of the granted lease has passed (RT-13: well before expiry). */
  readonly renewFraction: number;
  readonly retryInitialMs: number;
  readonly retryMaxMs: number;
  /** A pending request with no verification after this long is given up and retried. */
  readonly verificationTimeoutMs: number;
  /** Used when a subscribe verification carries no hub.lease_seconds (RT-10 says it must). */
  readonly assumedLeaseSeconds: number;
}

export const DEFAULT_LEASE_POLICY: LeasePolicy = {
  renewFraction: 0.8,
  retryInitialMs: 1_000,
  retryMaxMs: 300_000,
  verificationTimeoutMs: 120_000,
  assumedLeaseSeconds: 3_600,
};

/** renewAt = verifiedAt + 0.8 * lease (RT-13, WS-9: the lease counts from the verification). */
export function renewAtFor(
  verifiedAt: number,
  leaseSeconds: number,
  policy: Pick<LeasePolicy, 'renewFraction'> = DEFAULT_LEASE_POLICY,
): number {
  return verifiedAt + Math.floor(leaseSeconds * 1000 * policy.renewFraction);
}

/** Exponential backoff with jitter in [50%, 100%) of the capped step; `attempt` counts from 1. */
export function retryDelayMs(
  attempt: number,
  policy: Pick<LeasePolicy, 'retryInitialMs' | 'retryMaxMs'>,
  rand: () => number,
): number {
  return backoff(
    attempt,
    { baseMs: policy.retryInitialMs, maxMs: policy.retryMaxMs, jitter: 'half' },
    rand,
  );
}

export function topicsMatch(a: string, b: string): boolean {
  return normaliseTopicUrl(a) === normaliseTopicUrl(b);
}

// ---- planning: what to do next for one source

export interface ChannelTarget {
  readonly hub: string;
  readonly topic: string;
}

export type SubscriptionAction =
  | {
      readonly kind: 'subscribe';
      readonly reason: 'initial' | 'renew' | 'retry' | 'expired' | 'migrate';
      readonly attempt: number;
      readonly renewsId?: number;
    }
  | {
      readonly kind: 'unsubscribe';
      readonly subscriptionId: number;
      readonly why: 'renewed' | 'migrated' | 'channel-removed' | 'disabled';
    }
  | { readonly kind: 'expire'; readonly subscriptionId: number }
  | { readonly kind: 'abandon'; readonly subscriptionId: number; readonly why: string };

export interface SubscriptionPlan {
  readonly actions: SubscriptionAction[];
  /** When to plan again (ms), if nothing else happens before. */
  readonly wakeAt?: number;
  /** Set when the hub refused for good (WS-10): reported, not retried. */
  readonly denied?: SubscriptionRecord;
}

function matches(sub: SubscriptionRecord, target: ChannelTarget): boolean {
  return sub.hub === target.hub && topicsMatch(sub.topic, target.topic);
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}

/**
 * Decides the next subscription steps of one source from its records. `target` is the channel found
 * by the latest discovery (undefined: no channel, polling mode); `disabled` after `unsubscribe NAME`.
 */
export function planSubscription(input: {
  readonly target?: ChannelTarget;
  readonly disabled: boolean;
  readonly subs: readonly SubscriptionRecord[];
  readonly now: number;
  readonly policy: LeasePolicy;
  readonly random: () => number;
}): SubscriptionPlan {
  const { target, now, policy } = input;
  const actions: SubscriptionAction[] = [];
  let wakeAt: number | undefined;
  const live: SubscriptionRecord[] = [];
  for (const s of input.subs) {
    if (s.state === 'active' && s.leaseExpiresAt !== undefined && s.leaseExpiresAt <= now)
      actions.push({ kind: 'expire', subscriptionId: s.id });
    else if (s.state === 'active') live.push(s);
  }
  const pendings = input.subs.filter((s) => s.state === 'pending-subscribe');

  if (input.disabled || !target) {
    const why = input.disabled ? 'disabled' : 'channel-removed';
    for (const s of live) actions.push({ kind: 'unsubscribe', subscriptionId: s.id, why });
    for (const s of pendings) actions.push({ kind: 'abandon', subscriptionId: s.id, why });
    return { actions };
  }

  const onTarget = input.subs.filter((s) => matches(s, target));
  const latest = onTarget.reduce<SubscriptionRecord | undefined>(
    (a, s) => (!a || s.id > a.id ? s : a),
    undefined,
  );
  const current = live
    .filter((s) => matches(s, target))
    .reduce<SubscriptionRecord | undefined>((a, s) => (!a || s.id > a.id ? s : a), undefined);

  // Pending requests for another channel, or superseded by a newer attempt, are given up.
  for (const p of pendings) {
    if (!matches(p, target))
      actions.push({ kind: 'abandon', subscriptionId: p.id, why: 'channel changed' });
    else if (latest && p.id !== latest.id)
      actions.push({ kind: 'abandon', subscriptionId: p.id, why: 'superseded' });
  }

  if (current) {
    // Older callbacks of this channel (renewed) and subscriptions on a previous channel (migrated)
    // are unsubscribed once the current one is verified: until then they keep delivering.
    for (const s of live) {
      if (s.id === current.id) continue;
      actions.push({
        kind: 'unsubscribe',
        subscriptionId: s.id,
        why: matches(s, target) ? 'renewed' : 'migrated',
      });
    }
  }

  if (latest?.state === 'denied' && (!current || latest.id > current.id)) {
    return {
      actions,
      denied: latest,
      ...(current?.leaseExpiresAt !== undefined ? { wakeAt: current.leaseExpiresAt } : {}),
    };
  }

  const nextAttempt = (): SubscriptionAction | number => {
    // Returns an action to do now, or the time to try.
    if (latest?.state === 'pending-subscribe') {
      const deadline = latest.requestedAt + policy.verificationTimeoutMs;
      if (now < deadline) return deadline;
      actions.push({ kind: 'abandon', subscriptionId: latest.id, why: 'no verification in time' });
      return {
        kind: 'subscribe',
        reason: 'retry',
        attempt: latest.attempt + 1,
        ...(current ? { renewsId: current.id } : {}),
      };
    }
    if (latest?.state === 'abandoned' && (!current || latest.id > current.id)) {
      const at = latest.updatedAt + retryDelayMs(latest.attempt, policy, input.random);
      if (now < at) return at;
      return {
        kind: 'subscribe',
        reason: 'retry',
        attempt: latest.attempt + 1,
        ...(current ? { renewsId: current.id } : {}),
      };
    }
    if (current) return { kind: 'subscribe', reason: 'renew', attempt: 1, renewsId: current.id };
    const reason = input.subs.some((s) => s.state === 'expired' && matches(s, target))
      ? 'expired'
      : live.length > 0
        ? 'migrate'
        : 'initial';
    return { kind: 'subscribe', reason, attempt: 1 };
  };

  if (current && current.renewAt !== undefined && now < current.renewAt) {
    wakeAt = earliest(current.renewAt, current.leaseExpiresAt);
    return { actions, wakeAt };
  }
  const next = nextAttempt();
  if (typeof next === 'number') {
    wakeAt = earliest(next, current?.leaseExpiresAt);
  } else {
    actions.push(next);
  }
  return { actions, ...(wakeAt !== undefined ? { wakeAt } : {}) };
}
