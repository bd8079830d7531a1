// Every error code of @rsnotify/service-kit: the class that carries it and what it means.
import { RsnotifyError, type CodesOf, type ErrorCatalog } from '@rsnotify/shared';

export const SERVICE_KIT_ERRORS = {
  RSN_WAIT_TIMEOUT: {
    class: 'WaitTimeoutError',
    meaning: 'a waited-for condition did not hold before the deadline (tests)',
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
