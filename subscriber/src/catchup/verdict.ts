// What one catch-up step amounts to, as a plain function over what it read and applied: the record
// it leaves in the catch-up table, the one metric result and the one log event it is counted as, and
// what the ordering does next. One step with an optional end serves both kinds of catch-up: closing
// a gap [from, to] (M-7) and catching up to whatever the lists hold now (start-up, polling, `sync`,
// after a lapse). The position moves only over what the lists prove (RC-21..RC-24).
import { compareDateTime, type DateTime } from '@rsnotify/shared';
import type { HistoryGoneReason } from './coverage.js';

/** Why a catch-up step ran. */
export type CatchUpTrigger = 'gap' | 'startup' | 'poll' | 'manual' | 'baseline' | 'resubscribed';

/** What the step found: the Change Lists' answer and how applying their changes went. */
export type CatchUpFacts =
  | {
      readonly kind: 'collected';
      readonly changes: number;
      /** How far the lists provably cover past the position (never beyond the end). */
      readonly coveredTo?: DateTime;
      /** A list reaches back to the position (nothing is missing up to what it proves). */
      readonly reachesPosition: boolean;
      /** Changes that failed in a way that must hold the position. */
      readonly failed: number;
    }
  | { readonly kind: 'history-gone'; readonly reason?: HistoryGoneReason }
  /** The lists could not be read (network, status, not a Change List, no Change List at all). */
  | { readonly kind: 'error'; readonly code?: string; readonly message: string };

/** `sync` reports these and exits on them. */
export type CatchUpResultKind =
  'done' | 'partial' | 'up-to-date' | 'unproven' | 'failed' | 'history-gone';

export type CatchUpEvent =
  | 'catchup.completed'
  | 'catchup.partial'
  | 'catchup.up_to_date'
  | 'catchup.incomplete'
  | 'catchup.history_gone'
  | 'catchup.failed';

export interface CatchUpVerdict {
  readonly result: CatchUpResultKind;
  /** The state stored in the catch-up table. */
  readonly state: 'done' | 'partial' | 'failed' | 'history-gone';
  /** The `result` label of the catch-ups metric. */
  readonly metric: 'done' | 'partial' | 'up-to-date' | 'failed' | 'history-gone';
  readonly event: CatchUpEvent;
  readonly level: 'info' | 'warn';
  /** Why the step fell short, for the record, the log and `status`. */
  readonly why?: string;
  /** What the ordering does next. */
  readonly next:
    | { readonly kind: 'caught-up'; readonly to: DateTime }
    | { readonly kind: 're-baseline' }
    /** Nothing proven: a gap's catch-up backs off and is tried again (catchUpFailed). */
    | { readonly kind: 'retry' }
    /** Nothing new to prove (up to date). */
    | { readonly kind: 'nothing' };
  /** The step closed everything it was asked to: a source error may be cleared. */
  readonly clearsError: boolean;
  /** The step failed outright: the source shows this error. */
  readonly setsError?: string;
}

/**
 * Judges one catch-up step. `to` is the end of the gap it was asked to close, or undefined for a
 * catch-up to now (there, coverage of anything past the position is complete).
 */
export function judgeCatchUp(facts: CatchUpFacts, to: DateTime | undefined): CatchUpVerdict {
  if (facts.kind === 'error')
    return {
      result: 'failed',
      state: 'failed',
      metric: 'failed',
      event: 'catchup.failed',
      level: 'warn',
      why: facts.message,
      next: { kind: 'retry' },
      clearsError: false,
      setsError: `catch-up failed: ${facts.message}`,
    };
  if (facts.kind === 'history-gone')
    return {
      result: 'history-gone',
      state: 'history-gone',
      metric: 'history-gone',
      event: 'catchup.history_gone',
      level: 'warn',
      ...(facts.reason ? { why: facts.reason } : {}),
      next: { kind: 're-baseline' },
      clearsError: false,
    };
  const { failed, coveredTo, reachesPosition } = facts;
  if (failed === 0 && !coveredTo && reachesPosition && to === undefined)
    // A quiet Source between polls: the lists reach the position and list nothing after it.
    return {
      result: 'up-to-date',
      state: 'done',
      metric: 'up-to-date',
      event: 'catchup.up_to_date',
      level: 'info',
      next: { kind: 'nothing' },
      clearsError: false,
    };
  if (failed > 0 || !coveredTo) {
    const why =
      failed > 0
        ? `${failed} change(s) failed`
        : to !== undefined
          ? 'the Change Lists do not cover the gap yet'
          : reachesPosition
            ? 'the Change Lists prove nothing after the position yet'
            : 'no Change List proves where it starts';
    return {
      result:
        failed > 0 ? 'failed' : reachesPosition && to === undefined ? 'up-to-date' : 'unproven',
      state: failed > 0 ? 'failed' : 'partial',
      metric: failed > 0 ? 'failed' : 'partial',
      event: 'catchup.incomplete',
      level: 'warn',
      why,
      next: { kind: 'retry' },
      clearsError: false,
    };
  }
  // A lagging Change List proves only part of a gap: the position moves that far, the rest waits.
  const complete = to === undefined || compareDateTime(coveredTo, to) >= 0;
  return {
    result: complete ? 'done' : 'partial',
    state: complete ? 'done' : 'partial',
    metric: complete ? 'done' : 'partial',
    event: complete ? 'catchup.completed' : 'catchup.partial',
    level: 'info',
    next: { kind: 'caught-up', to: coveredTo },
    clearsError: complete,
  };
}
