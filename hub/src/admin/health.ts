// Delivery health of one subscription, as the console labels it. Pure: computed from the stored
// cursor state, so every hub process of a cluster labels a subscription the same way.

export type DeliveryHealth = 'healthy' | 'retrying' | 'failing';

/** Failed attempts on one notification after which a subscription counts as failing. */
export const FAILING_AFTER_ATTEMPTS = 3;
/** ...or this long failing on one notification, whichever comes first. */
export const FAILING_AFTER_MS = 60_000;

export function deliveryHealth(
  s: { readonly attempts: number; readonly firstFailedAt: number | undefined },
  now: number,
): DeliveryHealth {
  if (s.attempts <= 0) return 'healthy';
  if (s.attempts >= FAILING_AFTER_ATTEMPTS) return 'failing';
  if (s.firstFailedAt !== undefined && now - s.firstFailedAt >= FAILING_AFTER_MS) return 'failing';
  return 'retrying';
}

export function isDeliveryHealth(v: string | undefined): v is DeliveryHealth {
  return v === 'healthy' || v === 'retrying' || v === 'failing';
}
