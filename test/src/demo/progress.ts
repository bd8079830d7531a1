// The demo's progress display: one line redrawn in place on a terminal, plain periodic lines
// otherwise (logs, CI, `| tee`). Pure formatting; the caller owns the timer.
import { compareDateTime, parseDateTime } from '@rsnotify/shared';

/**
 * What the progress line shows. Every count is this run's (a rerun resumes a stored mirror: its
 * earlier totals are subtracted); `lagMs` and the positions are the current state.
 */
export interface DemoCounters {
  changesPublished: number;
  notificationsPosted: number;
  notificationsDelivered: number;
  changesApplied: number;
  lagMs: number | undefined;
  catchUps: number;
  /**
   * Changes whose apply failed (a fetch, or a hash/length check against a resource that had moved
   * on). Not necessarily lost: a later change or a catch-up repairs them, which the audit proves.
   */
  changesFailed: number;
  /** Deliveries answered 2xx but ignored because their signature did not verify (WS-15). */
  deliveriesIgnored: number;
  /** The demo's own failures to publish a batch of changes (real errors). */
  publishErrors: number;
  syncedUntil: string | undefined;
  sourceUntil: string | undefined;
}

/** The subscriber's running totals for the mirror (all runs on this data directory). */
export interface DemoTotals {
  changesApplied: number;
  changesFailed: number;
  deliveriesIgnored: number;
  catchUps: number;
}

export function formatProgress(c: DemoCounters, elapsedMs: number): string {
  const lag = c.lagMs === undefined ? '-' : `${Math.round(c.lagMs)} ms`;
  const synced = reachedUntil(c.syncedUntil, c.sourceUntil) ? 'in step' : 'behind';
  return (
    `t=${(elapsedMs / 1000).toFixed(0).padStart(4)}s  this run: published ${String(c.changesPublished).padStart(6)} changes` +
    ` in ${String(c.notificationsPosted).padStart(5)} notifications | delivered ${String(c.notificationsDelivered).padStart(5)}` +
    ` | applied ${String(c.changesApplied).padStart(6)} | lag ${lag.padStart(7)} | catch-ups ${c.catchUps}` +
    ` | failed applies ${c.changesFailed} | ignored deliveries (bad signature) ${c.deliveriesIgnored}` +
    ` | publish errors ${c.publishErrors} | ${synced}`
  );
}

/** The closing line: totals since the data directory was created, labelled as such. */
export function formatTotals(t: DemoTotals): string {
  return (
    `totals of this data directory (all runs): applied ${t.changesApplied} changes, ` +
    `${t.catchUps} catch-ups, ${t.changesFailed} failed applies, ` +
    `${t.deliveriesIgnored} ignored deliveries (bad signature)`
  );
}

export class ProgressLine {
  private lastPlain = 0;
  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly plainEveryMs = 5_000,
  ) {}

  get isTerminal(): boolean {
    return Boolean(this.out.isTTY);
  }

  update(text: string, now = Date.now()): void {
    if (this.isTerminal) {
      // A wrapped line cannot be redrawn with \r: clip it to the terminal's width.
      const width = this.out.columns > 1 ? this.out.columns - 1 : text.length;
      this.out.write(`\r\x1b[2K${text.length > width ? text.slice(0, width) : text}`);
    } else if (now - this.lastPlain >= this.plainEveryMs) {
      this.lastPlain = now;
      this.out.write(`${text}\n`);
    }
  }

  /** Ends the in-place line so the next output starts on a fresh line. */
  finish(text?: string): void {
    if (this.isTerminal) this.out.write(`\r\x1b[2K${text ?? ''}\n`);
    else if (text) this.out.write(`${text}\n`);
  }
}

/**
 * True when the subscriber's position is at or past the Source's last until. A catch-up may prove
 * coverage beyond the last change (an open Change List proves it up to the time it was read, RC-22).
 */
export function reachedUntil(
  syncedUntil: string | undefined,
  sourceUntil: string | undefined,
): boolean {
  if (syncedUntil === undefined || sourceUntil === undefined) return false;
  return compareDateTime(parseDateTime(syncedUntil), parseDateTime(sourceUntil)) >= 0;
}
