// The contract every benchmark scenario follows. A scenario measures its figure AND the raw baseline
// it is judged against in the same run (never a number remembered from another machine or day).

export interface BenchRow {
  /** Scenario group, e.g. 'parse', 'hub fan-out', 'subscriber baseline'. */
  readonly scenario: string;
  /** What was measured, e.g. 'entries/s (streaming reader)'. */
  readonly figure: string;
  readonly value: number;
  readonly unit: string;
  /** The baseline measured in the same run, when the figure has one. */
  readonly baseline?: { readonly label: string; readonly value: number; readonly unit: string };
  /** value / baseline.value, or as the scenario defines it (say so in `note`). */
  readonly ratio?: number;
  /** The target, for the reader: 'ratio >= 2', 'p50 < 5 ms'. */
  readonly target?: string;
  readonly note?: string;
}

export interface BenchContext {
  /** A fresh temporary directory for this scenario (removed afterwards). */
  readonly tmpDir: string;
  /** Scale factor: 1 for the full run, smaller for a quick smoke (`pnpm bench --quick`). */
  readonly scale: number;
  log(message: string): void;
}

export interface BenchScenario {
  readonly name: string;
  run(ctx: BenchContext): Promise<BenchRow[]>;
}
