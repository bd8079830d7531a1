// Every refusal on the subscriber's listener is a log line and a metric. A request head Node's HTTP
// parser refuses (headers past --max-http-header-size: 431; a malformed head: 400; a head that
// came too slowly: 408; a transfer coding we do not implement: 501) never reaches the app, so it is
// answered here from the server's 'clientError' event, as the hub does.
import type { Server } from 'node:http';
import { clientErrorAnswer, clientErrorResponse, type EventLogger } from '@rsnotify/service-kit';
import type { SubscriberLogEvents } from './log-events.js';
import type { Counter } from 'prom-client';

type Logger = EventLogger<SubscriberLogEvents>;

/** The metric every refusal goes to (rsnotify_subscriber_requests_rejected_total). */
export interface RejectionMetrics {
  readonly requestsRejected: Counter<'status' | 'reason'>;
}

export function recordRejection(
  metrics: RejectionMetrics,
  logger: Logger,
  status: number,
  reason: string,
  area: 'intake' | 'status',
): void {
  metrics.requestsRejected.inc({ status: String(status), reason });
  logger.info({ event: 'request.rejected', status, reason, area }, 'request.rejected');
}

export function watchClientErrors(
  server: Server,
  metrics: RejectionMetrics,
  logger: Logger,
  area: 'intake' | 'status',
): void {
  server.on('clientError', (err: Error & { code?: string; reason?: string }, socket) => {
    // A reset by the peer is not a request to answer (nor to count: nothing was refused).
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const answer = clientErrorAnswer(err.code, err.reason);
    recordRejection(metrics, logger, answer.status, answer.reason, area);
    socket.end(clientErrorResponse(answer));
  });
}
