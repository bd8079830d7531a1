// subscriptions/: WebSub subscribe/unsubscribe (WH-1..WH-14, RT-8..RT-14): request validation and
// lease policy (pure), verification of intent and denial (pure judgement + the worker), and the
// service that turns an accepted request into a pending intent.
export {
  parseHubForm,
  checkHttpUrl,
  type HubFormRequest,
  type PublishRequest,
  type SubscriptionRequest,
  type Validation,
} from './request.js';
export {
  grantLease,
  leaseExpiry,
  isLeaseActive,
  hasLeaseLapsed,
  activationEffect,
  type ActivationEffect,
  DEFAULT_LEASE_BOUNDS,
  type LeaseBounds,
} from './lease.js';
export {
  judgeVerification,
  verificationUrl,
  verificationRetryAt,
  type VerificationResult,
} from './verification.js';
export { VerificationWorker, type VerifierDeps } from './verifier.js';
export { SubscriptionService } from './service.js';
