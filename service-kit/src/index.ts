export { type Clock, type Random, systemClock, systemRandom } from './clock.js';
export { backoff, type BackoffOptions } from './backoff.js';
export { SERVICE_KIT_ERRORS, WaitTimeoutError, type ServiceKitErrorCode } from './errors.js';
