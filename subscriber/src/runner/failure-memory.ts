// Which failures are recorded already. A notification (or a catch-up) whose changes fail is
// attempted again, 1 s doubling to 60 s, until every change applies (promise 3), and a catch-up may
// meet the same change meanwhile. Recording every failure at every attempt made a Source that is
// down for a day write a 78,000-change notification's failures into the events table once a minute:
// on the order of 100 million rows kept for the whole history retention, and the status page's
// recent events nothing but repeats. Now a failure is recorded once while it stands: again only
// when that change fails another way, or fails after it had applied, or after a record ended with
// nothing holding the position. The metric and each attempt's own log line still count every one.
import type { ApplyResult } from '../mirror/index.js';

/**
 * The most failures remembered (a key is the change's URI, type and time: ~200 bytes, so 20 MiB at
 * most). Past it a failure is not remembered and is recorded at each attempt, as before: nothing
 * goes unrecorded, only repeats of a stretch of failures that large.
 */
export const REMEMBERED_FAILURES = 100_000;

export class FailureMemory {
  /** Change key → the error code it failed with last. */
  private readonly failures = new Map<string, string>();

  constructor(private readonly limit = REMEMBERED_FAILURES) {}

  /**
   * Whether this failed result repeats a failure recorded before (the same change, the same error
   * code). A failure not seen before is remembered from now on.
   */
  repeats(r: ApplyResult): boolean {
    const key = changeKey(r);
    const code = r.error?.code ?? 'failed';
    if (this.failures.get(key) === code) return true;
    if (this.failures.has(key) || this.failures.size < this.limit) this.failures.set(key, code);
    return false;
  }

  /** A change that applied (or was skipped) this time: a later failure of it is news again. */
  settled(r: ApplyResult): void {
    if (this.failures.size > 0) this.failures.delete(changeKey(r));
  }

  /**
   * A record ended with nothing holding the position: the position moves on, and what failed
   * before is history (the memory holds no more than the failures of the stretch it is stuck on).
   */
  forget(): void {
    this.failures.clear();
  }

  get remembered(): number {
    return this.failures.size;
  }
}

const changeKey = (r: ApplyResult): string => `${r.change} ${r.time?.lexical ?? ''} ${r.uri}`;
