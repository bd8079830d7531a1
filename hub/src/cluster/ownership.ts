// How a cluster spreads delivery ownership (the DeliveryOwnership port of delivery/) over its live
// processes: each subscription is claimed by exactly one process at a time (./coordinator.ts).

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
