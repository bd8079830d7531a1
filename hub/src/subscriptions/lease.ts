// Lease policy (WH-13, RT-11, M-8). Pure.

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

export function isLeaseActive(leaseExpiresAt: number, now: number): boolean {
  return now < leaseExpiresAt;
}
