// The daemons' logger: one factory, one message policy, and typed methods that accept only the
// events a package declares.
//
// Message policy (both daemons):
// - One event per line, JSON on stdout. `event` is the stable machine name, `area.what` in
//   snake_case (`delivery.gave_up`); tools and tests match on it, never on the message.
// - `msg` is a short human sentence; a call that gives none gets the event name as its message.
// - Each event has one field set, declared in the package's log-events.ts; the topic, callback
//   origin or URI a line concerns is a field, not part of the message.
// - Secrets and tokens never appear: the fields below are censored wherever a caller puts them,
//   and `callback`/`callbackUrl` show only an origin and a hash of the path (redact.ts).
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import { CALLBACK_LOG_SERIALIZERS } from './redact.js';

/** Event name → the fields of its line (without `event`). */
export type LogEventMap = object;

/** One line: `event` plus exactly that event's fields (a discriminated union over the events). */
export type LogLine<M extends object> = {
  [E in keyof M & string]: { readonly event: E } & M[E];
}[keyof M & string];

export type LogLevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** A pino logger whose level methods take only declared events (and an optional sentence). */
export type EventLogger<M extends object> = Omit<PinoLogger, LogLevelName | 'child'> & {
  [L in LogLevelName]: (line: LogLine<M>, message?: string) => void;
} & {
  /** A logger that adds `bindings` (e.g. `{ source }`) to every line. */
  child(bindings: Record<string, unknown>): EventLogger<M>;
};

/** The event name of a line shaped like an event, else undefined. */
function eventOf(arg: unknown): string | undefined {
  if (typeof arg !== 'object' || arg === null) return undefined;
  const event = (arg as { event?: unknown }).event;
  return typeof event === 'string' ? event : undefined;
}

/** Fields censored in every line of both daemons (keys a caller might pass along by mistake). */
const ALWAYS_REDACTED = [
  'secret',
  'token',
  '*.secret',
  '*.token',
  'authorization',
  'headers.authorization',
];

export interface LoggerOptions {
  /** `service` on every line, e.g. `rsnotify-hub`. */
  readonly service: string;
  readonly level?: string;
  /** Extra field paths censored for this daemon (pino redact syntax). */
  readonly redact?: readonly string[];
  /** Default: stdout, asynchronous. */
  readonly destination?: DestinationStream;
}

/** The one logger factory of both daemons; `M` is the package's declared event map. */
export function createEventLogger<M extends object>(options: LoggerOptions): EventLogger<M> {
  const logger = pino(
    {
      level: options.level ?? 'info',
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { ...CALLBACK_LOG_SERIALIZERS },
      redact: { paths: [...ALWAYS_REDACTED, ...(options.redact ?? [])], censor: '[redacted]' },
      hooks: {
        // The message policy: a line without a sentence carries its event name as the message.
        logMethod(args, method) {
          const event = eventOf(args[0]);
          if (event !== undefined && typeof args[1] !== 'string')
            return method.apply(this, [args[0], event]);
          return method.apply(this, args);
        },
      },
    },
    options.destination ?? pino.destination({ dest: 1, sync: false }),
  );
  return logger as unknown as EventLogger<M>;
}
