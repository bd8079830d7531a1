export { type Clock, type Random, systemClock, systemRandom } from './clock.js';
export { parseDuration } from './duration.js';
