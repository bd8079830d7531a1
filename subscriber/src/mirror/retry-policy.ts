// What to do after one fetch attempt: a pure function of the outcome and the attempt number. No
// clock, no randomness, no I/O; the caller sleeps (the house rule keeps decisions and timers apart,
// unlike undici's own retry handler, which does both in one function).
import { parseHttpDate } from '@rsnotify/shared';
import { backoff } from '@rsnotify/service-kit';

export type FetchOutcome =
  | { readonly kind: 'ok' }
  | { readonly kind: 'status'; readonly status: number; readonly retryAfter?: string }
  | { readonly kind: 'network'; readonly code?: string }
  /** The body arrived but is not what the change announced (RSN_HASH_MISMATCH / RSN_LENGTH_MISMATCH). */
  | { readonly kind: 'integrity'; readonly code: string }
  /** Never worth repeating: refused address, unmappable path, body over the limit. */
  | { readonly kind: 'fatal'; readonly code: string };

export type RetryDecision =
  | { readonly action: 'done' }
  | { readonly action: 'retry'; readonly delayMs: number }
  | { readonly action: 'fail'; readonly code: string; readonly status?: number };

export interface RetryPolicyOptions {
  readonly maxAttempts: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  /** A Retry-After longer than this is not waited for: the attempt fails (and is reported). */
  readonly maxRetryAfterMs?: number;
}

const DEFAULTS = { baseDelayMs: 200, maxDelayMs: 10_000, maxRetryAfterMs: 120_000 };

/** Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, relative to `now`. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = parseHttpDate(trimmed);
  return at === undefined ? undefined : Math.max(0, at - now);
}

function retryDelay(attempt: number, o: Required<Omit<RetryPolicyOptions, 'maxAttempts'>>): number {
  return backoff(
    attempt,
    { baseMs: o.baseDelayMs, maxMs: o.maxDelayMs, jitter: 'none' },
    Math.random,
  );
}

/**
 * `attempt` is the number of the attempt that just ended (1 for the first). 5xx, 429 and network
 * errors are retried with exponential backoff (429 and 503 honour Retry-After); an integrity failure
 * and other statuses fail at once.
 */
export function decideRetry(
  outcome: FetchOutcome,
  attempt: number,
  now: number,
  options: RetryPolicyOptions,
): RetryDecision {
  const o = { ...DEFAULTS, ...options };
  if (outcome.kind === 'ok') return { action: 'done' };
  if (outcome.kind === 'fatal') return { action: 'fail', code: outcome.code };
  // An integrity failure is reported at once. The Source serves only current bytes, so a mismatch
  // almost always means the resource changed again after this change was announced: fetching it again
  // gets the same newer bytes. Whether a later change supersedes it is known only to the caller (the
  // buffer, the Change Lists), which also owns the slower retry for a mismatch that stands. Retrying
  // here cost 1.4 s per stale resource and made a lagging subscriber fall further behind.
  if (outcome.kind === 'integrity') return { action: 'fail', code: outcome.code };
  const exhausted = attempt >= o.maxAttempts;
  if (outcome.kind === 'network') {
    return exhausted
      ? { action: 'fail', code: 'RSN_FETCH_FAILED' }
      : { action: 'retry', delayMs: retryDelay(attempt, o) };
  }
  const { status } = outcome;
  const retryable = status >= 500 || status === 429 || status === 408;
  if (!retryable || exhausted) return { action: 'fail', code: 'RSN_HTTP_STATUS', status };
  let delayMs = retryDelay(attempt, o);
  if (status === 429 || status === 503) {
    const after = parseRetryAfter(outcome.retryAfter, now);
    if (after !== undefined) {
      if (after > o.maxRetryAfterMs) return { action: 'fail', code: 'RSN_HTTP_STATUS', status };
      delayMs = Math.max(delayMs, after);
    }
  }
  return { action: 'retry', delayMs };
}

/** Network error codes (undici and Node) that a later attempt may not see again. */
export function isTransientNetworkError(code: string | undefined): boolean {
  if (code === undefined) return true;
  if (code.startsWith('RSN_')) return false; // our own refusals (private address, bad URL, too large)
  return true;
}
