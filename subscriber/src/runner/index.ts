// runner/: the per-source shell of the daemon (see source-runner.ts).
export { SourceRunner, type CatchUpOutcome, type Runtime } from './source-runner.js';
