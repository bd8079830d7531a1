// Shared by the ordering engine tests: datetimes as µs offsets from a base, notifications, a step
// runner over the engine's transitions, and effects rendered as short strings.
import assert from 'node:assert/strict';
import { dateTimeFromMicros, type DateTime } from '@rsnotify/shared';
import {
  applied,
  catchUpFailed,
  caughtUp,
  initialOrderingState,
  receive,
  tick,
  type OrderingEffect,
  type OrderingOptions,
  type OrderingState,
  type PendingNotification,
} from '../src/ordering/index.js';

export const BASE = 1_800_000_000_000_000n; // µs
export const t = (n: number): DateTime => dateTimeFromMicros(BASE + BigInt(n));
export const opts: OrderingOptions = {
  gapTimeoutMs: 1_000,
  catchUpRetryBaseMs: 500,
  catchUpRetryMaxMs: 4_000,
};
export const N = (id: number, from: number, until: number): PendingNotification => ({
  id,
  from: t(from),
  until: t(until),
  receivedAt: 0,
});

/** Effects with datetimes replaced by their offsets, for readable expectations. */
export function show(effects: readonly OrderingEffect[]): string[] {
  const off = (d: DateTime | undefined): string =>
    d === undefined ? '-' : String(Number(BigInt(Math.round(d.epochMs * 1000)) - BASE));
  return effects.map((e) => {
    switch (e.kind) {
      case 'apply':
        return `apply ${e.id} after=${off(e.after)} until=${off(e.until)}`;
      case 'supersede':
        return `supersede ${e.id} ${e.reason}`;
      case 'catch-up':
        return `catch-up ${off(e.from)}..${off(e.to)}`;
      case 'gap-detected':
        return `gap ${off(e.from)}..${off(e.to)}`;
    }
  });
}

export const pos = (s: OrderingState): number | undefined =>
  s.syncedUntil === undefined
    ? undefined
    : Number(BigInt(Math.round(s.syncedUntil.epochMs * 1000)) - BASE);

export type Step =
  | { receive: PendingNotification; now?: number }
  | { applied: number; now?: number }
  | { caughtUp: number; now?: number }
  | { catchUpFailed: true; now?: number }
  | { tick: number };

export interface Row {
  name: string;
  start?: number;
  steps: Step[];
  effects: string[];
  syncedUntil: number | undefined;
  buffered?: number[];
}

export function run(row: Row): {
  state: OrderingState;
  effects: string[];
  positions: (number | undefined)[];
} {
  let state = initialOrderingState(row.start === undefined ? undefined : t(row.start));
  const effects: string[] = [];
  const positions: (number | undefined)[] = [];
  for (const step of row.steps) {
    const before = pos(state);
    let out;
    let kind: string;
    if ('receive' in step) {
      out = receive(state, step.receive, step.now ?? 0, opts);
      kind = 'receive';
    } else if ('applied' in step) {
      out = applied(state, step.applied, step.now ?? 0, opts);
      kind = 'applied';
    } else if ('caughtUp' in step) {
      out = caughtUp(state, t(step.caughtUp), step.now ?? 0, opts);
      kind = 'caughtUp';
    } else if ('catchUpFailed' in step) {
      out = catchUpFailed(state, step.now ?? 0, opts);
      kind = 'catchUpFailed';
    } else {
      out = tick(state, step.tick, opts);
      kind = 'tick';
    }
    state = out.state;
    effects.push(...show(out.effects));
    // Promise 3: only applied() and caughtUp() move the position.
    if (kind !== 'applied' && kind !== 'caughtUp')
      assert.equal(pos(state), before, `${kind} moved syncedUntil`);
    positions.push(pos(state));
  }
  return { state, effects, positions };
}
