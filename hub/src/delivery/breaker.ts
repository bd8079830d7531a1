// A circuit breaker per callback origin. Repeated timeouts or connection failures open it: no
// delivery to that origin starts while it is open, so a dead or hanging origin stops taking
// connections and time. After a cool-down one probe is let through (half-open); its success closes
// the breaker, its failure opens it again for twice as long (up to a ceiling). Pure state over an
// injected clock; the caller owns timers, metrics and logs through `onChange`.
import type { DeliveryOutcome } from '../outbound/index.js';

export type BreakerState = 'closed' | 'half-open' | 'open';

/** The gauge values of rsnotify_hub_origin_breaker_state. */
export const BREAKER_STATE_VALUE: Readonly<Record<BreakerState, number>> = {
  closed: 0,
  'half-open': 1,
  open: 2,
};

export interface BreakerOptions {
  /** Consecutive timeouts / connection failures that open the breaker. */
  readonly failureThreshold: number;
  /** First cool-down; doubled after each failed probe up to maxOpenMs. */
  readonly openMs: number;
  readonly maxOpenMs: number;
}

export const DEFAULT_BREAKER_OPTIONS: BreakerOptions = {
  failureThreshold: 5,
  openMs: 2_000,
  maxOpenMs: 60_000,
};

export interface BreakerChange {
  readonly origin: string;
  readonly from: BreakerState;
  readonly to: BreakerState;
  readonly failures: number;
  /** When an open breaker lets its next probe through. */
  readonly retryAt?: number;
}

interface OriginBreakerState {
  state: BreakerState;
  failures: number;
  openMs: number;
  openUntil: number;
  probeInFlight: boolean;
}

/**
 * What counts against an origin: no answer at all (timeouts, refused or reset connections). Any
 * HTTP status, 5xx included, proves the origin answers; its retries are the retry policy's job.
 */
export function isOriginFailure(outcome: DeliveryOutcome): boolean {
  return outcome.kind === 'failed' && outcome.status === undefined;
}

/** What `allow` answers: shared constants, as it is asked once per delivery. */
export interface BreakerGate {
  readonly ok: boolean;
  readonly probe: boolean;
}
const ALLOWED: BreakerGate = { ok: true, probe: false };
const PROBE: BreakerGate = { ok: true, probe: true };
const REFUSED: BreakerGate = { ok: false, probe: false };

export class OriginBreakers {
  private readonly origins = new Map<string, OriginBreakerState>();

  constructor(
    private readonly options: BreakerOptions,
    private readonly now: () => number,
    private readonly onChange: (change: BreakerChange) => void,
  ) {}

  state(origin: string): BreakerState {
    return this.origins.get(origin)?.state ?? 'closed';
  }

  /** When an open breaker will allow a probe, or undefined when it is not open. */
  retryAt(origin: string): number | undefined {
    const s = this.origins.get(origin);
    return s?.state === 'open' ? s.openUntil : undefined;
  }

  /**
   * May a delivery to `origin` start now? While the breaker is open only subscriptions with a clean
   * record (`suspect` false: their last delivery did not fail) may try, so a healthy callback on a
   * shared origin is not held up by its hanging neighbours; once the cool-down is over one suspect
   * delivery (the probe) may go at a time. The caller reports each outcome with the `probe` flag.
   */
  allow(origin: string, suspect: boolean): BreakerGate {
    const s = this.origins.get(origin);
    if (!s || s.state === 'closed' || !suspect) return ALLOWED;
    if (s.state === 'open') {
      if (this.now() < s.openUntil) return REFUSED;
      this.move(origin, s, 'half-open');
    }
    if (s.probeInFlight) return REFUSED;
    s.probeInFlight = true;
    return PROBE;
  }

  /** Any answer from the origin closes its breaker; a failed probe opens it again, for longer. */
  record(origin: string, outcome: DeliveryOutcome, probe: boolean): void {
    let s = this.origins.get(origin);
    if (probe && s) s.probeInFlight = false;
    if (!isOriginFailure(outcome)) {
      if (!s) return;
      if (s.state !== 'closed') this.move(origin, s, 'closed');
      this.origins.delete(origin);
      return;
    }
    if (!s) {
      s = {
        state: 'closed',
        failures: 0,
        openMs: this.options.openMs,
        openUntil: 0,
        probeInFlight: false,
      };
      this.origins.set(origin, s);
    }
    s.failures++;
    if (s.state === 'half-open' && probe) {
      s.openMs = Math.min(this.options.maxOpenMs, s.openMs * 2);
      s.openUntil = this.now() + s.openMs;
      this.move(origin, s, 'open');
    } else if (s.state === 'closed' && s.failures >= this.options.failureThreshold) {
      s.openUntil = this.now() + s.openMs;
      this.move(origin, s, 'open');
    }
  }

  private move(origin: string, s: OriginBreakerState, to: BreakerState): void {
    const from = s.state;
    if (from === to) return;
    s.state = to;
    this.onChange({
      origin,
      from,
      to,
      failures: s.failures,
      ...(to === 'open' ? { retryAt: s.openUntil } : {}),
    });
  }
}
