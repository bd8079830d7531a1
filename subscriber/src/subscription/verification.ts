// Verification of intent (WebSub §5.3; WS-8..WS-10, WS-19): whether to confirm a hub's subscribe or
// unsubscribe verification GET, record a denial, or refuse it (404), given the pending subscription
// it names. A plain function over the stored record and the query, the clock passed in; the intake
// maps the decision to the HTTP answer.
import type { SubscriptionPatch, SubscriptionRecord } from '../store/index.js';
import { DEFAULT_LEASE_POLICY, renewAtFor, topicsMatch, type LeasePolicy } from './lifecycle.js';

export interface VerificationQuery {
  readonly mode?: string;
  readonly topic?: string;
  readonly challenge?: string;
  readonly leaseSeconds?: string;
  readonly reason?: string;
}

export type VerificationDecision =
  | {
      readonly kind: 'confirm';
      readonly challenge: string;
      readonly patch: SubscriptionPatch;
      readonly event: 'subscription.verified' | 'subscription.unsubscribed';
    }
  | { readonly kind: 'denied'; readonly patch: SubscriptionPatch }
  | { readonly kind: 'reject'; readonly why: string };

export function decideVerification(
  rec: SubscriptionRecord | undefined,
  q: VerificationQuery,
  now: number,
  policy: Pick<LeasePolicy, 'renewFraction' | 'assumedLeaseSeconds'> = DEFAULT_LEASE_POLICY,
): VerificationDecision {
  if (!rec) return { kind: 'reject', why: 'unknown callback' };
  if (!q.mode || q.topic === undefined)
    return { kind: 'reject', why: 'hub.mode or hub.topic missing' };
  // WS-8: compare after decoding percent-encoded unreserved characters (WH-6).
  if (!topicsMatch(q.topic, rec.topic)) return { kind: 'reject', why: 'topic does not match' };
  if (q.mode === 'denied') {
    // WS-10: the hub refuses; answer 2xx, record it, and do not retry in a loop.
    if (rec.state === 'unsubscribed' || rec.state === 'abandoned')
      return { kind: 'reject', why: `denial for a ${rec.state} subscription` };
    return {
      kind: 'denied',
      patch: { state: 'denied', deniedReason: q.reason ?? '', updatedAt: now },
    };
  }
  if (q.challenge === undefined || q.challenge === '')
    return { kind: 'reject', why: 'hub.challenge missing' };
  if (q.mode === 'subscribe') {
    if (rec.state !== 'pending-subscribe')
      return { kind: 'reject', why: `no pending subscribe (state ${rec.state})` };
    const parsed =
      q.leaseSeconds !== undefined && /^\d+$/.test(q.leaseSeconds)
        ? Number(q.leaseSeconds)
        : undefined;
    const lease =
      parsed !== undefined && parsed > 0
        ? parsed
        : (rec.requestedLeaseSeconds ?? policy.assumedLeaseSeconds);
    return {
      kind: 'confirm',
      challenge: q.challenge,
      event: 'subscription.verified',
      patch: {
        state: 'active',
        verifiedAt: now,
        leaseSeconds: lease,
        leaseExpiresAt: now + lease * 1000,
        renewAt: renewAtFor(now, lease, policy),
        lastError: undefined,
        updatedAt: now,
      },
    };
  }
  if (q.mode === 'unsubscribe') {
    // WS-9: hub.lease_seconds is ignored on unsubscribe verifications. WS-19: pending record needed.
    if (rec.state !== 'pending-unsubscribe')
      return { kind: 'reject', why: `no pending unsubscribe (state ${rec.state})` };
    return {
      kind: 'confirm',
      challenge: q.challenge,
      event: 'subscription.unsubscribed',
      patch: { state: 'unsubscribed', updatedAt: now },
    };
  }
  return { kind: 'reject', why: `unknown hub.mode ${q.mode}` };
}
