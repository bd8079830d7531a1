// What a subscription's cursor does after an attempt (WH-19, WH-20, promise 1). Pure: no clock,
// no randomness, no I/O of its own; `now` and `rand` come from the caller.
import type { DeliveryOutcome } from '../outbound/index.js';
import { backoff } from '@rsnotify/service-kit';

export interface RetryPolicy {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  /** After this long failing on one notification, it is given up and the cursor moves on. */
  readonly maxAgeMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  initialDelayMs: 1_000,
  maxDelayMs: 300_000,
  maxAgeMs: 86_400_000,
};

export interface RetryState {
  /** Failed attempts so far on the current notification. */
  readonly attempts: number;
  readonly firstFailedAt: number | undefined;
}

export type NextStep =
  /** Acknowledged: move the cursor to the next notification. */
  | { readonly kind: 'advance' }
  | {
      readonly kind: 'retry';
      readonly at: number;
      readonly attempts: number;
      readonly firstFailedAt: number;
    }
  /** Retried for longer than the retry age: record it as given up and move on. */
  | { readonly kind: 'give_up'; readonly reason: string }
  /** WH-19: 410 Gone ends the subscription. */
  | { readonly kind: 'end' };

/** Exponential backoff with jitter in [delay/2, delay), capped. `attempts` counts failures so far (>= 1). */
export function backoffDelay(attempts: number, policy: RetryPolicy, rand: () => number): number {
  return backoff(
    attempts,
    { baseMs: policy.initialDelayMs, maxMs: policy.maxDelayMs, jitter: 'half' },
    rand,
  );
}

export function nextStep(
  state: RetryState,
  outcome: DeliveryOutcome,
  now: number,
  rand: () => number,
  policy: RetryPolicy,
): NextStep {
  if (outcome.kind === 'delivered') return { kind: 'advance' };
  if (outcome.kind === 'gone') return { kind: 'end' };
  const firstFailedAt = state.firstFailedAt ?? now;
  const attempts = state.attempts + 1;
  if (now - firstFailedAt >= policy.maxAgeMs) {
    const what =
      outcome.status !== undefined ? `status ${outcome.status}` : (outcome.code ?? 'error');
    return {
      kind: 'give_up',
      reason: `retry age ${policy.maxAgeMs} ms exceeded after ${attempts} attempts (last: ${what})`,
    };
  }
  const at = Math.min(now + backoffDelay(attempts, policy, rand), firstFailedAt + policy.maxAgeMs);
  return { kind: 'retry', at, attempts, firstFailedAt };
}
