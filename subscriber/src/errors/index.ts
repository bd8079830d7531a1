// errors/: the catalog of the subscriber's error codes and the error for refusals that belong to
// no concept folder (a command naming an unknown source, a one-shot sync that cannot start).
import { RsnotifyError, type ErrorDetails } from '@rsnotify/shared';
import type { SubscriberCodesOf } from './catalog.js';

export { SUBSCRIBER_ERRORS, type SubscriberCodesOf, type SubscriberErrorCode } from './catalog.js';

export class SubscriberError extends RsnotifyError<SubscriberCodesOf<'SubscriberError'>> {
  constructor(
    code: SubscriberCodesOf<'SubscriberError'>,
    message: string,
    details: ErrorDetails = {},
  ) {
    super(code, message, { details });
    this.name = 'SubscriberError';
  }
}

/** A store that cannot be opened, or an operation that cannot run (the store is closed). */
export class StoreError extends RsnotifyError<SubscriberCodesOf<'StoreError'>> {
  constructor(
    code: SubscriberCodesOf<'StoreError'>,
    message: string,
    options: { cause?: unknown; details?: ErrorDetails } = {},
  ) {
    super(code, message, options);
    this.name = 'StoreError';
  }
}
