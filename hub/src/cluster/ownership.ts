// Delivery ownership: which subscriptions' cursors this process drives. With SQLite there is one
// process and it drives all of them; with PostgreSQL each subscription is claimed by exactly one
// live process at a time (./coordinator.ts) and the scheduler asks this port before tracking one.
export interface DeliveryOwnership {
  drives(subscriptionId: number): boolean;
}

export const SOLE_OWNER: DeliveryOwnership = { drives: () => true };

/**
 * How many claims to take (positive) or hand back (negative) so work spreads over the live
 * processes: each aims at ceil(active / live); one extra is tolerated so claims do not ping-pong
 * between processes while counts change. Pure, table-tested.
 */
export function fairShareStep(
  owned: number,
  activeSubscriptions: number,
  liveNodes: number,
): number {
  const target = Math.ceil(activeSubscriptions / Math.max(1, liveNodes));
  if (owned < target) return target - owned;
  if (owned > target + 1) return target - owned;
  return 0;
}
