// Lease policy (WH-13, RT-11, M-8). Pure: every function takes the time it judges at (`now`, from the
// caller's injected clock), so the rules are table-tested without a store or a timer. The stores and
// the scheduler ask these functions instead of comparing timestamps themselves.

export interface LeaseBounds {
  readonly minSeconds: number;
  readonly defaultSeconds: number;
  readonly maxSeconds: number;
}

export const DEFAULT_LEASE_BOUNDS: LeaseBounds = {
  minSeconds: 300,
  defaultSeconds: 864_000,
  maxSeconds: 2_678_400,
};

/** The lease granted for a requested one: the default when none, clamped to the bounds, never perpetual. */
export function grantLease(requested: number | undefined, bounds: LeaseBounds): number {
  const wanted =
    requested === undefined || !Number.isFinite(requested) || requested <= 0
      ? bounds.defaultSeconds
      : Math.floor(requested);
  return Math.min(bounds.maxSeconds, Math.max(bounds.minSeconds, wanted));
}

/** WH-13: the lease counts from the verification request. */
export function leaseExpiry(verificationSentAt: number, leaseSeconds: number): number {
  return verificationSentAt + leaseSeconds * 1000;
}

/**
 * WH-13: a lease has lapsed from the instant it expires on (the expiry instant itself included); a
 * lapsed subscription gets no more deliveries and the expiry sweep removes it.
 */
export function hasLeaseLapsed(leaseExpiresAt: number, now: number): boolean {
  return leaseExpiresAt <= now;
}

export function isLeaseActive(leaseExpiresAt: number, now: number): boolean {
  return !hasLeaseLapsed(leaseExpiresAt, now);
}

/**
 * What a verified subscribe does to the (topic, callback) pair (WH-9, WH-13):
 * - `create`: no subscription yet; it starts at the topic's current end.
 * - `renew`: a live subscription; lease and secret are replaced, the cursor stays where it is.
 * - `restart`: the lease had lapsed; it is a new subscription again: what was accepted while it had
 *   lapsed was never owed to it, so the cursor restarts at the topic's end.
 */
export type ActivationEffect = 'create' | 'renew' | 'restart';

export function activationEffect(
  existing: { readonly leaseExpiresAt: number } | undefined,
  now: number,
): ActivationEffect {
  if (!existing) return 'create';
  return hasLeaseLapsed(existing.leaseExpiresAt, now) ? 'restart' : 'renew';
}
