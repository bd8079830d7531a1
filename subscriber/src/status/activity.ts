// The parts of a Source's status that tell its history rather than its position: gaps (how many,
// the last one), the last catch-up and the last reconciliation with the Resource List. Pure: records
// in, plain JSON-ready objects and one-line descriptions out (the page, the CLI and /status.json
// show the same objects).
import type { ReconcileResult } from '../audit/index.js';
import type {
  CatchUpRecord,
  ReconciliationOutcome,
  ReconciliationRecord,
  SourceActivity,
} from '../store/index.js';

export interface GapStatus {
  /** Lexical `until` the position stood at, and the `from` of the notification past the gap. */
  readonly from: string;
  readonly to: string;
  /** ISO time the gap was detected. */
  readonly detectedAt: string;
}

export interface CatchUpStatus {
  readonly reason: CatchUpRecord['reason'];
  readonly state: CatchUpRecord['state'];
  readonly from?: string;
  readonly to?: string;
  readonly changes: number;
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly error?: string;
}

export interface ReconciliationStatus {
  /** ISO time the reconciliation finished. */
  readonly at: string;
  readonly reason: ReconciliationRecord['reason'];
  readonly outcome: ReconciliationOutcome;
  readonly checked?: number;
  readonly missing?: number;
  readonly extra?: number;
  readonly different?: number;
  readonly fetched?: number;
  readonly removed?: number;
  readonly failed?: number;
  readonly error?: string;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function gapStatus(activity: SourceActivity): GapStatus | undefined {
  const g = activity.lastGap;
  return g && { from: g.from, to: g.to, detectedAt: iso(g.detectedAt) };
}

export function catchUpStatus(c: CatchUpRecord | undefined): CatchUpStatus | undefined {
  if (!c) return undefined;
  return {
    reason: c.reason,
    state: c.state,
    ...(c.from !== undefined ? { from: c.from } : {}),
    ...(c.to !== undefined ? { to: c.to } : {}),
    changes: c.changes,
    startedAt: iso(c.startedAt),
    ...(c.finishedAt !== undefined ? { finishedAt: iso(c.finishedAt) } : {}),
    ...(c.lastError !== undefined ? { error: c.lastError } : {}),
  };
}

export function reconciliationStatus(
  r: ReconciliationRecord | undefined,
): ReconciliationStatus | undefined {
  if (!r) return undefined;
  const { at, ...rest } = r;
  return { at: iso(at), ...rest };
}

/** The record the runner stores after a reconciliation; `result` is absent when the run threw. */
export function reconciliationRecord(
  reason: ReconciliationRecord['reason'],
  at: number,
  outcome: ReconciliationOutcome,
  result: ReconcileResult | undefined,
  error?: string,
): ReconciliationRecord {
  return {
    at,
    reason,
    outcome,
    ...(result
      ? {
          checked: result.report.checked,
          missing: result.report.missing.length,
          extra: result.report.extra.length,
          different: result.report.different.length,
          fetched: result.fetched,
          removed: result.removed,
          failed: result.failed,
        }
      : {}),
    ...(error !== undefined ? { error: error.slice(0, 500) } : {}),
  };
}

// ---- one-line descriptions (the page's cells and the CLI's rows)

export function describeGap(g: GapStatus): string {
  return `${g.from} to ${g.to}, detected ${g.detectedAt}`;
}

export function describeCatchUp(c: CatchUpStatus): string {
  const span =
    c.from !== undefined || c.to !== undefined ? ` ${c.from ?? '…'} to ${c.to ?? 'now'}` : '';
  return (
    `${c.state} (${c.reason})${span}, ${c.changes} change(s), started ${c.startedAt}` +
    (c.error ? `: ${c.error}` : '')
  );
}

export function describeReconciliation(r: ReconciliationStatus): string {
  const counts =
    r.checked === undefined
      ? ''
      : `: checked ${r.checked}, missing ${r.missing ?? 0}, extra ${r.extra ?? 0}, different ${r.different ?? 0}; fetched ${r.fetched ?? 0}, removed ${r.removed ?? 0}, failed ${r.failed ?? 0}`;
  return `${r.outcome} (${r.reason}) at ${r.at}${counts}${r.error ? `; error: ${r.error}` : ''}`;
}
