export { type Clock, type Random, systemClock, systemRandom } from './clock.js';
export { backoff, type BackoffOptions } from './backoff.js';
