// A command line the hub CLI cannot run (a bad combination of flags): exit 2 with the message.
import { RsnotifyError } from '@rsnotify/shared';
import type { HubCodesOf } from '../errors/index.js';

export class UsageError extends RsnotifyError<HubCodesOf<'UsageError'>> {
  constructor(message: string) {
    super('RSN_HUB_USAGE', message);
    this.name = 'UsageError';
  }
}
