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
  readonly baseline?: {
    readonly label: string;
    readonly value: number;
    readonly unit: string;
    /** min-max over the rounds the baseline's median came from. */
    readonly range?: string;
    /** CPU time of the baseline's process per operation, microseconds. */
    readonly cpuUsPerOp?: number;
  };
  /** min-max over the rounds `value` is the median of, e.g. '27,100-29,800, n=3'. */
  readonly range?: string;
  /** CPU time of the measured process (not the driver's) per operation, microseconds. */
  readonly cpuUsPerOp?: number;
  /** Peak resident set size of the measured process during the measured runs, MiB. */
  readonly peakRssMiB?: number;
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
