// @rsnotify/hub public surface: startHub and its options (the cross-package contract), plus the pure
// policies other tools may want to reuse or test against.
export { startHub, type HubDependencies, type RunningHub } from './hub.js';
export { resolveHubConfig, type HubConfig, type HubOptions } from './config.js';
export {
  grantLease,
  parseHubForm,
  judgeVerification,
  verificationUrl,
  type LeaseBounds,
} from './subscriptions/index.js';
export {
  nextStep,
  backoffDelay,
  CURSOR_FLUSH_DELAY_MS,
  type NextStep,
  type RetryPolicy,
} from './delivery/index.js';
export { classifyStatus, classifyError, type DeliveryOutcome } from './outbound/index.js';
export {
  BridgeService,
  bridgedTopicUrl,
  advance,
  listsToRead,
  nextPollAt,
  buildNotifications,
  type BridgedSourceView,
} from './bridge/index.js';
