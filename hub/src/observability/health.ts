import { describeError } from '@rsnotify/shared';

export interface HealthReport {
  readonly ok: boolean;
  readonly database: 'ok' | 'unreachable';
  readonly error?: string;
}

/** GET /healthz: the hub is healthy when its database answers. */
export async function checkHealth(ping: () => Promise<void>): Promise<HealthReport> {
  try {
    await ping();
    return { ok: true, database: 'ok' };
  } catch (err) {
    return { ok: false, database: 'unreachable', error: describeError(err).message };
  }
}
