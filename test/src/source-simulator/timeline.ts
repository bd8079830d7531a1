// Change times at microsecond precision. Built on shared's monotonic microsecond clock, with small
// seeded gaps between the changes of one batch, so times look like real events (not t, t+1, t+2 µs)
// and never repeat or go backwards: every `from`, change `datetime` and `until` is distinct, which
// keeps from < datetime < until strict and contiguity (RN-5) exact.
import { createMicrosClock, dateTimeFromMicros, type DateTime } from '@rsnotify/shared';

export interface Timeline {
  /**
   * A fresh instant strictly after every earlier one, at least `minGapMicros` after the last;
   * `jitterMicros` (< 1000) fills the sub-millisecond digits the wall clock does not have.
   */
  tick(minGapMicros?: number, jitterMicros?: number): { micros: bigint; time: DateTime };
  /** The last instant handed out (µs since the epoch). */
  last(): bigint;
}

export function createTimeline(nowMs: () => number): Timeline {
  const wall = createMicrosClock(() => Math.floor(nowMs()));
  let last = 0n;
  return {
    tick(minGapMicros = 1, jitterMicros = 0) {
      let t = wall() + BigInt(Math.max(0, Math.min(999, Math.floor(jitterMicros))));
      const floor = last + BigInt(Math.max(1, Math.floor(minGapMicros)));
      if (t < floor) t = floor;
      last = t;
      return { micros: t, time: dateTimeFromMicros(t) };
    },
    last: () => last,
  };
}
