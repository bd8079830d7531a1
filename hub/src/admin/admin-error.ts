// The admin operations' refusal: a stable code and the HTTP status the API answers with.
import { RsnotifyError } from '@rsnotify/shared';
import type { HubCodesOf } from '../errors/index.js';

export class AdminError extends RsnotifyError<HubCodesOf<'AdminError'>> {
  constructor(
    code: HubCodesOf<'AdminError'>,
    message: string,
    readonly status: 400 | 404 | 409 | 503,
    details: Record<string, unknown> = {},
  ) {
    super(code, message, { details });
    this.name = 'AdminError';
  }
}
