// Automatic mode: a batch of changes every `intervalMs`, sized from a seeded RNG (not from elapsed
// time, so a seed repeats the sequence), with occasional bursts.
import type { Random } from './random.js';

export interface AutoOptions {
  readonly intervalMs: number;
  readonly burstProbability: number;
  readonly burstFactor: number;
}

export class AutoChanges {
  private timer: NodeJS.Timeout | undefined;
  private carry = 0;

  constructor(
    private readonly rng: Random,
    private readonly options: AutoOptions,
    private readonly makeBatch: (count: number) => void,
  ) {}

  start(ratePerSecond: number): void {
    this.pause();
    const interval = Math.max(5, this.options.intervalMs);
    const perTick = (Math.max(0, ratePerSecond) * interval) / 1000;
    this.timer = setInterval(() => {
      let size = perTick * (0.5 + this.rng.next());
      if (this.rng.chance(this.options.burstProbability)) size *= this.options.burstFactor;
      size += this.carry;
      const count = Math.floor(size);
      this.carry = size - count;
      this.makeBatch(count);
    }, interval);
  }

  pause(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  get running(): boolean {
    return this.timer !== undefined;
  }
}
