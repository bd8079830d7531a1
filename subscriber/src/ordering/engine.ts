// The contiguity engine (RN-5, M-7): decides, from a position `syncedUntil` and the notifications
// received so far, what to apply, what to drop and when to catch up from the Change Lists. Pure: no
// I/O, no timers, the clock comes in as `now`. The shell carries out the effects and reports back
// through applied() / caughtUp() / catchUpFailed(); `syncedUntil` moves only there (promise 3).
import { compareDateTime, type DateTime } from '@rsnotify/shared';
import { backoff } from '@rsnotify/service-kit';
import { NotificationBuffer, type PendingNotification } from './buffer.js';

export type { PendingNotification } from './buffer.js';

export type InFlightStep =
  { readonly id: number; readonly until: DateTime } | { readonly catchUpTo: DateTime };

export interface OrderingState {
  /** Undefined until a baseline or the first notification sets it. */
  readonly syncedUntil?: DateTime;
  /** At most one step in flight: applying one notification, or one catch-up. */
  readonly applying?: InFlightStep;
  /** Sorted by from (then until), no duplicates; persistent, so an old state stays valid. */
  readonly buffer: NotificationBuffer;
  /** ms, when the current gap was first seen. */
  readonly gapOpenedAt?: number;
  /** Catch-ups of the current gap that ended without closing it (drives the backoff). */
  readonly catchUpAttempts?: number;
  /** ms, no catch-up before this (backoff after a failed or lagging catch-up). */
  readonly retryAt?: number;
}

export type OrderingEffect =
  /** Apply the entries with time > after (all of them when `after` is undefined or entries lack time). */
  | {
      readonly kind: 'apply';
      readonly id: number;
      readonly after: DateTime | undefined;
      readonly until: DateTime;
    }
  | { readonly kind: 'supersede'; readonly id: number; readonly reason: 'covered' | 'duplicate' }
  /** Fill [from, to) from the Change Lists. */
  | { readonly kind: 'catch-up'; readonly from: DateTime; readonly to: DateTime }
  /** For logs and metrics: a gap [from, to) was first seen. */
  | { readonly kind: 'gap-detected'; readonly from: DateTime; readonly to: DateTime };

export interface OrderingOptions {
  /** How long a gap may stay open before catch-up (the missing notification may still arrive, M-7). */
  readonly gapTimeoutMs: number;
  /** Backoff after a catch-up that did not close the gap: base * 2^(attempts-1), capped. */
  readonly catchUpRetryBaseMs?: number;
  readonly catchUpRetryMaxMs?: number;
}

export interface Transition {
  readonly state: OrderingState;
  readonly effects: OrderingEffect[];
}

const DEFAULT_RETRY_BASE_MS = 1_000;
const DEFAULT_RETRY_MAX_MS = 60_000;

const cmp = compareDateTime;

function isBefore(a: DateTime, b: DateTime): boolean {
  return cmp(a, b) < 0;
}

export function initialOrderingState(syncedUntil?: DateTime): OrderingState {
  const buffer = NotificationBuffer.empty();
  return syncedUntil === undefined ? { buffer } : { syncedUntil, buffer };
}

/** True when the notification's interval lies entirely at or before P: nothing left to apply. */
function isCovered(n: PendingNotification, p: DateTime): boolean {
  const untilVsP = cmp(n.until, p);
  // A zero-length interval starting exactly at P still carries entries at P (RN-11: from <= datetime
  // <= until), so it is applied, not dropped.
  return untilVsP < 0 || (untilVsP === 0 && isBefore(n.from, p));
}

function retryDelay(attempts: number, opts: OrderingOptions): number {
  const base = opts.catchUpRetryBaseMs ?? DEFAULT_RETRY_BASE_MS;
  const max = opts.catchUpRetryMaxMs ?? DEFAULT_RETRY_MAX_MS;
  return backoff(attempts, { baseMs: base, maxMs: max, jitter: 'none' }, Math.random);
}

/** The open gap [syncedUntil, head.from), if the buffer starts beyond the position. */
export function currentGap(state: OrderingState): { from: DateTime; to: DateTime } | undefined {
  const p = state.syncedUntil;
  const head = state.buffer.head();
  if (p === undefined || head === undefined || !isBefore(p, head.from)) return undefined;
  return { from: p, to: head.from };
}

/**
 * Moves through the buffer as far as the position allows: drops covered notifications, starts the
 * next apply, or notes (and, once it is old enough, repairs) a gap. Never moves the position.
 */
function drain(
  input: OrderingState,
  now: number,
  opts: OrderingOptions,
  effects: OrderingEffect[],
  mayCatchUp = true,
): OrderingState {
  let state = input;
  if (state.applying) return state;
  let buffer = state.buffer;
  for (let head = buffer.head(); head !== undefined; head = buffer.head()) {
    const p = state.syncedUntil;
    if (p === undefined) {
      // No baseline: the first notification starts the position at its `from` (M-7).
      buffer = buffer.withoutHead();
      effects.push({ kind: 'apply', id: head.id, after: undefined, until: head.until });
      return { ...state, buffer, applying: { id: head.id, until: head.until } };
    }
    if (isCovered(head, p)) {
      buffer = buffer.withoutHead();
      effects.push({ kind: 'supersede', id: head.id, reason: 'covered' });
      continue;
    }
    if (!isBefore(p, head.from)) {
      // from <= P < until: a partial overlap applies only what lies after P; from == P applies all.
      buffer = buffer.withoutHead();
      const after = cmp(head.from, p) === 0 ? undefined : p;
      effects.push({ kind: 'apply', id: head.id, after, until: head.until });
      return { ...state, buffer, applying: { id: head.id, until: head.until } };
    }
    break; // from > P: a gap
  }
  state = { ...state, buffer };
  return checkGap(state, now, opts, effects, mayCatchUp);
}

/** Opens, keeps or closes the gap bookkeeping, and starts a catch-up once the gap is due. */
function checkGap(
  state: OrderingState,
  now: number,
  opts: OrderingOptions,
  effects: OrderingEffect[],
  mayCatchUp: boolean,
): OrderingState {
  const gap = currentGap(state);
  if (!gap) {
    const { gapOpenedAt: _g, catchUpAttempts: _a, retryAt: _r, ...rest } = state;
    return rest;
  }
  let next = state;
  if (next.gapOpenedAt === undefined) {
    next = { ...next, gapOpenedAt: now };
    effects.push({ kind: 'gap-detected', from: gap.from, to: gap.to });
  }
  if (mayCatchUp && !next.applying && isGapDue(next, now, opts)) {
    effects.push({ kind: 'catch-up', from: gap.from, to: gap.to });
    next = { ...next, applying: { catchUpTo: gap.to } };
  }
  return next;
}

function isGapDue(state: OrderingState, now: number, opts: OrderingOptions): boolean {
  if (state.gapOpenedAt === undefined) return false;
  return now >= state.gapOpenedAt + opts.gapTimeoutMs && now >= (state.retryAt ?? -Infinity);
}

/** A notification arrived (or was reloaded from the inbox after a restart). */
export function receive(
  state: OrderingState,
  n: PendingNotification,
  now: number,
  opts: OrderingOptions,
): Transition {
  const effects: OrderingEffect[] = [];
  const applying = state.applying;
  // An id names one inbox row, and so one interval: the same row again is found among the
  // notifications of its interval (a binary search, not a scan of the buffer).
  const sameInterval = state.buffer.withInterval(n.from, n.until);
  if (
    (applying && 'id' in applying && applying.id === n.id) ||
    sameInterval.some((b) => b.id === n.id)
  ) {
    return { state, effects }; // the same inbox row twice: nothing new
  }
  if (state.syncedUntil !== undefined && isCovered(n, state.syncedUntil)) {
    effects.push({ kind: 'supersede', id: n.id, reason: 'covered' });
    return { state, effects };
  }
  if (sameInterval.length > 0) {
    // RN-5: one interval is one notification; the same interval again is a redelivery.
    effects.push({ kind: 'supersede', id: n.id, reason: 'duplicate' });
    return { state, effects };
  }
  const next = drain({ ...state, buffer: state.buffer.inserted(n) }, now, opts, effects);
  return { state: next, effects };
}

/** The shell finished the 'apply' of notification `id`: the position moves to its `until`. */
export function applied(
  state: OrderingState,
  id: number,
  now: number,
  opts: OrderingOptions,
): Transition {
  const applying = state.applying;
  if (!applying || !('id' in applying) || applying.id !== id) return { state, effects: [] };
  const p = state.syncedUntil;
  const syncedUntil = p === undefined || isBefore(p, applying.until) ? applying.until : p;
  // The position moved across a really applied interval: whatever gap follows is a new one.
  const { applying: _a, gapOpenedAt: _g, catchUpAttempts: _c, retryAt: _r, ...rest } = state;
  const effects: OrderingEffect[] = [];
  return { state: drain({ ...rest, syncedUntil }, now, opts, effects), effects };
}

/**
 * The shell finished a catch-up: changes were applied and the lists provably cover up to `to`
 * (may be short of the requested end when a Change List lags). With a catch-up in flight the position
 * never passes the requested end, since nothing beyond it was applied. Without one (polling, the
 * `sync` command) the position moves to `to`. If the gap is still open, the next catch-up backs off.
 */
export function caughtUp(
  state: OrderingState,
  to: DateTime,
  now: number,
  opts: OrderingOptions,
): Transition {
  const applying = state.applying;
  if (applying && 'id' in applying) return { state, effects: [] }; // not a catch-up in flight
  let reached = to;
  if (applying && isBefore(applying.catchUpTo, reached)) reached = applying.catchUpTo;
  const p = state.syncedUntil;
  const syncedUntil = p === undefined || isBefore(p, reached) ? reached : p;
  const { applying: _a, ...rest } = state;
  const effects: OrderingEffect[] = [];
  let next = drain({ ...rest, syncedUntil }, now, opts, effects, false);
  // Still a gap: the lists lag behind (or a new gap followed); the next catch-up waits for tick().
  if (!next.applying && currentGap(next)) next = backOff(next, now, opts);
  return { state: next, effects };
}

/**
 * A baseline was taken at `at` (RC-15: the mirror reflects at least every change up to `at`). Used
 * on first start and when the Change Lists no longer reach back to the position (M-7). Clears a
 * catch-up in flight; the position never moves backwards.
 */
export function rebaselined(
  state: OrderingState,
  at: DateTime,
  now: number,
  opts: OrderingOptions,
): Transition {
  const applying = state.applying;
  if (applying && 'id' in applying) return { state, effects: [] };
  const p = state.syncedUntil;
  const syncedUntil = p === undefined || isBefore(p, at) ? at : p;
  const { applying: _a, gapOpenedAt: _g, catchUpAttempts: _c, retryAt: _r, ...rest } = state;
  const effects: OrderingEffect[] = [];
  return { state: drain({ ...rest, syncedUntil }, now, opts, effects), effects };
}

/** The catch-up in flight failed (network, Source down, list unreadable): try again after a backoff. */
export function catchUpFailed(
  state: OrderingState,
  now: number,
  opts: OrderingOptions = { gapTimeoutMs: 0 },
): Transition {
  const applying = state.applying;
  if (!applying || 'id' in applying) return { state, effects: [] };
  const { applying: _a, ...rest } = state;
  return { state: backOff(rest, now, opts), effects: [] };
}

function backOff(state: OrderingState, now: number, opts: OrderingOptions): OrderingState {
  const attempts = (state.catchUpAttempts ?? 0) + 1;
  return { ...state, catchUpAttempts: attempts, retryAt: now + retryDelay(attempts, opts) };
}

/** Timers: a gap that has been open for `gapTimeoutMs` (and is past any backoff) starts a catch-up. */
export function tick(state: OrderingState, now: number, opts: OrderingOptions): Transition {
  const effects: OrderingEffect[] = [];
  if (state.applying) return { state, effects };
  return { state: drain(state, now, opts, effects), effects };
}

/** When the shell should call tick() next (ms), or undefined when no timer is needed. */
export function nextWakeAt(state: OrderingState, opts: OrderingOptions): number | undefined {
  if (state.applying || !currentGap(state) || state.gapOpenedAt === undefined) return undefined;
  return Math.max(state.gapOpenedAt + opts.gapTimeoutMs, state.retryAt ?? -Infinity);
}
