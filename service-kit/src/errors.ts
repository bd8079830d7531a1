// Every error code of @rsnotify/service-kit: the class that carries it (or `outcome` for a code
// that is a result rather than a thrown error) and what it means.
import { RsnotifyError, type CodesOf, type ErrorCatalog } from '@rsnotify/shared';

export const SERVICE_KIT_ERRORS = {
  RSN_WAIT_TIMEOUT: {
    class: 'WaitTimeoutError',
    meaning:
      'a waited-for condition did not hold before the deadline, or the process it was awaited from ended first (tests)',
  },
  RSN_CONFIG_INVALID: {
    class: 'ConfigError',
    meaning: 'a configuration value (flag, environment, file) is missing or invalid',
  },
  // Request-body refusals (body-limit.ts): results the HTTP layer answers with, not thrown.
  RSN_BODY_TOO_LARGE: { class: 'outcome', meaning: 'a request body over the limit (413)' },
  RSN_BODY_UNREADABLE: {
    class: 'outcome',
    meaning: 'a request body that could not be read or was cut short (400)',
  },
  RSN_BODY_BUDGET_EXHAUSTED: {
    class: 'outcome',
    meaning: 'too many unauthenticated request bodies in flight; retry later (503)',
  },
} as const satisfies ErrorCatalog;

export type ServiceKitErrorCode = keyof typeof SERVICE_KIT_ERRORS;

export class WaitTimeoutError extends RsnotifyError<
  CodesOf<typeof SERVICE_KIT_ERRORS, 'WaitTimeoutError'>
> {
  constructor(message: string, cause?: unknown) {
    super('RSN_WAIT_TIMEOUT', message, { cause });
    this.name = 'WaitTimeoutError';
  }
}
