// Which failures of a retried record were recorded already. A notification (or a catch-up, or a
// baseline) whose changes fail is attempted again, 1 s doubling to 60 s, until every change applies
// (promise 3). Recording every failure at every attempt made a Source that is down for a day write
// a 78,000-change notification's failures into the events table once a minute: 112 million rows
// kept for the whole history retention, and the status page's recent events nothing but repeats.
// Now an attempt records a failure only when the record's previous attempts did not fail that
// change in that way; the metric and the attempt's own log line still count every one.
import type { ApplyResult } from '../mirror/index.js';

/**
 * The most failures remembered for one record (a key is the change's URI, type and time: ~200
 * bytes, so 20 MiB at most). Past it a failure is not remembered and is recorded at each attempt,
 * as before: nothing goes unrecorded, only repeats of a record that large.
 */
export const REMEMBERED_FAILURES = 100_000;

export class FailureMemory {
  private record: string | undefined;
  /** Change key → the error code it failed with last. */
  private readonly failures = new Map<string, string>();

  constructor(private readonly limit = REMEMBERED_FAILURES) {}

  /**
   * The results of one attempt of `record` (a name for it: an inbox id, a catch-up interval):
   * another record than the last one forgets what the last one failed with.
   */
  attempt(record: string): this {
    if (record !== this.record) {
      this.record = record;
      this.failures.clear();
    }
    return this;
  }

  /**
   * Whether this failed result repeats a failure an earlier attempt of the record recorded (the
   * same change, the same error code). A failure not seen before is remembered from now on.
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

  get remembered(): number {
    return this.failures.size;
  }
}

const changeKey = (r: ApplyResult): string => `${r.change} ${r.time?.lexical ?? ''} ${r.uri}`;
