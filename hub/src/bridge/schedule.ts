// When a bridged Source is polled next. Pure: the clock and randomness come in as data.
export interface ScheduleInput {
  readonly now: number;
  /** When the poll that just ended started. */
  readonly startedAt: number;
  readonly intervalMs: number;
  /** Failed polls in a row (0 after a success). */
  readonly failures: number;
  /** Retry-After of the Source's origin, as an instant. */
  readonly notBefore?: number;
  /** 0..1 */
  readonly random: number;
}

const MAX_BACKOFF_MS = 15 * 60_000;

/**
 * A healthy Source is polled once per interval, measured start to start (never more often however
 * many subscribers there are). After 429/5xx/network failures the interval doubles per failure, with
 * jitter, up to 15 minutes (or the interval when that is longer); Retry-After is never undercut.
 */
export function nextPollAt(i: ScheduleInput): number {
  let at = Math.max(i.now, i.startedAt + i.intervalMs);
  if (i.failures > 0) {
    const cap = Math.max(MAX_BACKOFF_MS, i.intervalMs);
    const backoff = Math.min(cap, i.intervalMs * 2 ** Math.min(i.failures, 20));
    at = Math.max(at, i.startedAt + backoff * (0.75 + 0.25 * i.random));
  }
  if (i.notBefore !== undefined) at = Math.max(at, i.notBefore);
  return Math.round(at);
}
