// The subscriber's own JSON logger writing into memory, so an end-to-end test can wait for an
// outcome the daemon logs (one event a line) and count events, instead of waiting for a time.
import { createLogger } from '@rsnotify/subscriber';

export interface LogEvent {
  readonly event?: string;
  readonly [field: string]: unknown;
}

export interface CapturedLog {
  readonly logger: ReturnType<typeof createLogger>;
  /** Every line so far, parsed; or only those of the named events. */
  events(...names: string[]): LogEvent[];
}

export function captureLog(level = 'info'): CapturedLog {
  const lines: LogEvent[] = [];
  const logger = createLogger(level, {
    write(chunk: string) {
      for (const line of chunk.split('\n'))
        if (line.trim()) lines.push(JSON.parse(line) as LogEvent);
    },
  });
  return {
    logger,
    events: (...names) =>
      names.length === 0 ? [...lines] : lines.filter((l) => names.includes(l.event ?? '')),
  };
}

/** The events that end a catch-up step: exactly one per step. */
export const CATCH_UP_END_EVENTS = [
  'catchup.completed',
  'catchup.partial',
  'catchup.up_to_date',
  'catchup.incomplete',
  'catchup.history_gone',
  'catchup.failed',
];
