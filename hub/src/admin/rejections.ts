// Records what the hub endpoint refused (4xx/5xx) in the shared store, for the console's "recent
// rejections". It sees only the answer already made (hub-endpoint.ts tells it of each; a middleware
// does the same for the Hono routes at the hub path), so the protocol code does not know it exists.
// Recording never delays or fails the answer.
import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../observability/index.js';
import { redactText } from '@rsnotify/service-kit';
import { REFUSAL_STATUS } from '../app.js';
import type { AdminStore } from './store.js';

export function rejectionKind(contentType: string | undefined): string {
  const ct = (contentType ?? '').toLowerCase();
  if (ct.includes('xml')) return 'notification';
  if (ct.startsWith('application/x-www-form-urlencoded')) return 'hub request';
  return 'request';
}

/** At most this many rejections a second are written: a flood of bad requests must not become a flood of writes. */
export const REJECTIONS_RECORDED_PER_SECOND = 20;

/** A 503 (busy, shutting down) says the hub's state, not what is wrong with the request. */
function isRecordedRejection(status: number): boolean {
  return status >= 400 && status !== REFUSAL_STATUS.busy;
}

/** Records one refused answer (status, the request's Content-Type, the answer's text). */
export type RejectionRecorder = (
  status: number,
  contentType: string | undefined,
  text: string,
) => void;

export function rejectionRecorder(
  store: AdminStore,
  now: () => number,
  logger: Logger,
): RejectionRecorder {
  let second = 0;
  let written = 0;
  return (status, contentType, text) => {
    if (!isRecordedRejection(status)) return;
    const at = now();
    const s = Math.floor(at / 1000);
    if (s !== second) {
      second = s;
      written = 0;
    }
    if (++written > REJECTIONS_RECORDED_PER_SECOND) return;
    store
      .recordRejection({
        at,
        status,
        kind: rejectionKind(contentType),
        reason: redactText(text.split('\n')[0]!.trim() || `HTTP ${status}`),
      })
      .catch((err: unknown) =>
        logger.warn({ event: 'admin.rejection_not_recorded', err }, 'could not record a rejection'),
      );
  };
}

/** The recorder around Hono routes at the hub path (those not served by hub-endpoint.ts). */
export function recordRejections(record: RejectionRecorder): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const status = c.res.status;
    // Checked before the answer is cloned: most answers are not rejections.
    if (!isRecordedRejection(status)) return;
    const contentType = c.req.header('content-type');
    void c.res
      .clone()
      .text()
      .then(
        (text) => record(status, contentType, text),
        () => record(status, contentType, ''),
      );
  };
}
