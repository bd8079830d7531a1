import { pino, type Logger } from 'pino';
import { CALLBACK_LOG_SERIALIZERS } from '@rsnotify/service-kit';

export type { Logger };

/**
 * JSON logs on stdout, one event per line with a stable `event` name. Secrets and tokens are
 * redacted by path wherever a caller might pass them along by mistake; a `callback` field shows
 * only its origin and a hash of its path (the path is the subscriber's capability).
 */
export function createLogger(level = 'info', destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'rsnotify-hub' },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { ...CALLBACK_LOG_SERIALIZERS },
      redact: {
        paths: ['secret', 'token', '*.secret', '*.token', 'headers.authorization', 'authorization'],
        censor: '[redacted]',
      },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}
