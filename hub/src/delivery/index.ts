// delivery/: getting accepted notifications to every subscription, in order, at least once: the
// scheduler (per-subscription cursors, concurrency, timers), the pure retry policy, and the shared body cache.
export { DeliveryScheduler, type SchedulerDeps } from './scheduler.js';
export type { DeliveryStore } from './delivery-store.js';
export {
  backoffDelay,
  nextStep,
  DEFAULT_RETRY_POLICY,
  type NextStep,
  type RetryPolicy,
  type RetryState,
} from './retry-policy.js';
export { NotificationCache, cacheBytesFor } from './cache.js';
export { CURSOR_FLUSH_DELAY_MS } from './cursor-writer.js';
export { SOLE_OWNER, type DeliveryOwnership } from './ownership.js';
export { OriginBudget, type OriginBudgetOptions, type OriginSlot } from './origin-budget.js';
export { DEFAULT_BREAKER_OPTIONS } from './breaker.js';
