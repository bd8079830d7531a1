// The store's error type: every engine reports refusals and failures with a stable code
// (RSN_SOURCE_EXISTS, RSN_PREFIX_TAKEN, RSN_STORE_UNAVAILABLE, RSN_STORE_UNREACHABLE, ...).
import { RsnotifyError } from '@rsnotify/shared';
import type { HubCodesOf } from '../errors/index.js';

export class StoreError extends RsnotifyError<HubCodesOf<'StoreError'>> {
  constructor(
    code: HubCodesOf<'StoreError'>,
    message: string,
    options: { cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(code, message, options);
    this.name = 'StoreError';
  }
}

/** The database could not be reached for this call; the caller may answer 503 and retry later. */
export function isStoreUnavailable(err: unknown): boolean {
  return err instanceof StoreError && err.code === 'RSN_STORE_UNAVAILABLE';
}
