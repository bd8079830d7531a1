// The simulator's only source of randomness: a small seeded PRNG (sfc32), so that a seed fixes the
// sequence of changes and of fault decisions. Separate streams (changes, notification faults,
// serving faults) keep one from shifting another when a switch is flipped at run time.

export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [0, n). */
  int(n: number): number;
  /** Integer in [min, max] inclusive. */
  between(min: number, max: number): number;
  /** True with probability p (p <= 0 never, p >= 1 always, without consuming a number either way). */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
}

/** Spreads a 32-bit seed over the four sfc32 words (splitmix32), so nearby seeds diverge at once. */
function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

export function createRandom(seed: number, stream = 0): Random {
  const mix = splitmix32((seed ^ Math.imul(stream + 1, 0x27d4eb2d)) >>> 0);
  let a = mix(),
    b = mix(),
    c = mix(),
    d = mix();
  const next32 = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t;
  };
  for (let i = 0; i < 12; i++) next32();
  const next = (): number => next32() / 4294967296;
  return {
    next,
    int: (n) => Math.floor(next() * n),
    between: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => (p <= 0 ? false : p >= 1 ? true : next() < p),
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new RangeError('pick from an empty list');
      return items[Math.floor(next() * items.length)]!;
    },
  };
}
