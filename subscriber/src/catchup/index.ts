// catchup/: the Change List (Index) walker. Given the position and the end of a gap, it collects the
// changes in between in document order (RC-23) and says how far the lists provably cover, or that
// the Source's history no longer reaches back (re-baseline, M-7). HTTP only; no state of its own.
export { CatchUpError, collectChanges } from './collect.js';
export type { CatchUpResult, CatchUpSource } from './collect.js';
export {
  classifyFailure,
  EntrySelector,
  holdsPosition,
  isOutdatable,
  joinsCoverage,
  provenInterval,
  remainingFailures,
} from './coverage.js';
export type {
  FailureKind,
  HistoryGoneReason,
  JoinDecision,
  KnownFailure,
  ListFacts,
  ProvenInterval,
} from './coverage.js';
export { judgeCatchUp } from './verdict.js';
export type {
  CatchUpEvent,
  CatchUpFacts,
  CatchUpResultKind,
  CatchUpTrigger,
  CatchUpVerdict,
} from './verdict.js';
