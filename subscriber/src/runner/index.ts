// runner/: the per-source shell of the daemon (source-runner.ts wires the steps; the decisions are
// pure: catchup/verdict.ts, channel-policy.ts, ordering/, subscription/lifecycle.ts).
export { SourceRunner } from './source-runner.js';
export { EVENTS_PER_COMMIT, FAILURE_LINES_PER_RECORD } from './results.js';
export { notificationChanges } from './notifications.js';
export type { CatchUpOutcome } from './catch-up-step.js';
export {
  systemTimers,
  subscriptionPortFrom,
  type Runtime,
  type SubscriptionPort,
  type Timers,
} from './runtime.js';
export {
  ACTIVATION_SETTLE_READS,
  activationSettling,
  channelChange,
  pollRediscoveryIntervalMs,
  rediscoverBeforeRenewal,
  rediscoveryDue,
  type ActivationFacts,
  type ChannelChange,
  type ChannelFacts,
} from './channel-policy.js';
