// The admin operations' refusal: a stable code and the domain refusal it is. The admin API answers
// it through app.ts's one refusal table, so the status follows from the code alone.
import { RsnotifyError } from '@rsnotify/shared';
import type { HubCodesOf, Refusal } from '../errors/index.js';

type AdminErrorCode = HubCodesOf<'AdminError'>;

/** What each admin error code refuses, in the hub's refusal kinds. */
export const ADMIN_ERROR_REFUSAL = {
  RSN_ADMIN_NOT_FOUND: 'not-found',
  RSN_ADMIN_BAD_POLL: 'malformed',
  RSN_ADMIN_BAD_ID: 'malformed',
  RSN_ADMIN_BAD_TOKEN_NAME: 'malformed',
  // Only a process without a delivery engine (the admin CLI without --hub) lacks it.
  RSN_ADMIN_NO_DELIVERY: 'unavailable',
} as const satisfies Record<AdminErrorCode, Refusal>;

export class AdminError extends RsnotifyError<AdminErrorCode> {
  readonly refusal: Refusal;
  constructor(code: AdminErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, { details });
    this.name = 'AdminError';
    this.refusal = ADMIN_ERROR_REFUSAL[code];
  }
}
