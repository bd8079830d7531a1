// The hub's HTTP listener: Node's server with the hub's timeouts and header limits, the answers to
// request heads the parser refused, and the per-client connection limit.
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { answerClientErrors } from '@rsnotify/service-kit';
import type { Logger, HubMetrics } from '../observability/index.js';
import { limitConnectionsPerClient } from './connection-limit.js';

export interface ListenerOptions {
  readonly fetch: (request: Request, env: unknown) => Response | Promise<Response>;
  readonly host: string;
  readonly port: number;
  /** Open connections per client address (0: unlimited). */
  readonly maxConnectionsPerClient: number;
  readonly logger: Logger;
  readonly metrics: HubMetrics;
}

export async function startListener(o: ListenerOptions): Promise<Server> {
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve(
      {
        fetch: o.fetch,
        port: o.port,
        hostname: o.host,
        // Refused bodies are drained by the app itself, within its own bounds (service-kit body-limit).
        autoCleanupIncoming: false,
        serverOptions: {
          requestTimeout: 60_000,
          headersTimeout: 15_000,
          maxHeaderSize: 16 * 1024,
          keepAliveTimeout: 30_000,
        },
      },
      () => resolve(s as Server),
    ) as Server;
    s.once('error', reject);
  });
  const { logger, metrics } = o;
  answerClientErrors(server, {
    rejected({ status, reason }, code) {
      logger.info(
        { event: 'request.client_error', code, status },
        'malformed or oversized request',
      );
      metrics.requestsRejected.inc({ status: String(status), reason });
    },
  });
  limitConnectionsPerClient(server, o.maxConnectionsPerClient, {
    refused() {
      metrics.requestsRejected.inc({ status: '503', reason: 'connections_per_client' });
    },
    report(address, refused, limit) {
      logger.warn(
        { event: 'connection.refused', client: address, refused, limit },
        'too many connections from one client address',
      );
    },
  });
  return server;
}
