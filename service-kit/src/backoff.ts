// The one exponential backoff of both daemons (delivery and verification retries in the hub; fetch,
// catch-up and subscription retries in the subscriber; the simulator's publisher). Pure: the random
// source is a parameter, so a policy table-tests with a fixed one.
import type { Random } from './clock.js';

export interface BackoffOptions {
  /** The delay after the first failure. */
  readonly baseMs: number;
  /** No delay is longer than this (before jitter). */
  readonly maxMs: number;
  /**
   * `none`: exactly the capped step. `half`: uniform in [step/2, step), so that many clients that
   * failed together do not retry together.
   */
  readonly jitter: 'none' | 'half';
}

/** The delay before the next try; `attempt` counts failures so far, from 1. */
export function backoff(attempt: number, options: BackoffOptions, random: Random): number {
  const exponent = Math.min(30, Math.max(0, attempt - 1));
  const step = Math.min(options.maxMs, options.baseMs * 2 ** exponent);
  if (options.jitter === 'none') return step;
  return Math.max(1, Math.floor(step / 2 + (step / 2) * random()));
}
