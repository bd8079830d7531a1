import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * JSON logs on stdout, one event per line with a stable `event` name. Secrets and tokens are
 * redacted by path wherever a caller might pass them along by mistake.
 */
export function createLogger(level = 'info', destination?: pino.DestinationStream): Logger {
  return pino({
    level,
    base: { service: 'rsnotify-hub' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['secret', 'token', '*.secret', '*.token', 'headers.authorization', 'authorization'], censor: '[redacted]' },
  }, destination ?? pino.destination({ dest: 1, sync: false }));
}
