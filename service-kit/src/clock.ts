// Time and randomness are injected into every decision so that policies can be table-tested with a
// manual clock and a fixed random source.

/** Milliseconds since the Unix epoch, like `Date.now`. */
export interface Clock {
  now(): number;
}

/** A uniform random number in [0, 1), like `Math.random`. */
export type Random = () => number;

export const systemClock: Clock = { now: () => Date.now() };
export const systemRandom: Random = Math.random;
