// The hub's HTTP listener: Node's server with the hub's timeouts and header limits, the answers to
// request heads the parser refused, and the per-client connection limit. A POST to the hub path goes
// to the hub endpoint (hub-endpoint.ts), every other request to the Hono app (app.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { answerClientErrors, targetPath } from '@rsnotify/service-kit';
import type { Logger, HubMetrics } from '../observability/index.js';
import { limitConnectionsPerClient } from './connection-limit.js';

export interface ListenerOptions {
  readonly fetch: (request: Request, env: unknown) => Response | Promise<Response>;
  /** POSTs to `path` (the query string aside) are handled here, not by `fetch`. */
  readonly hubEndpoint: {
    readonly path: string;
    readonly handle: (req: IncomingMessage, res: ServerResponse) => void;
  };
  readonly host: string;
  readonly port: number;
  /** Open connections per client address (0: unlimited). */
  readonly maxConnectionsPerClient: number;
  readonly logger: Logger;
  readonly metrics: HubMetrics;
}

export async function startListener(o: ListenerOptions): Promise<Server> {
  // Refused bodies are drained by the app itself, within its own bounds (service-kit body-limit).
  const app = getRequestListener(o.fetch, { hostname: o.host, autoCleanupIncoming: false });
  const { path, handle } = o.hubEndpoint;
  const server = createServer(
    {
      requestTimeout: 60_000,
      headersTimeout: 15_000,
      maxHeaderSize: 16 * 1024,
      keepAliveTimeout: 30_000,
    },
    (req, res) => {
      if (req.method === 'POST' && targetPath(req.url) === path) handle(req, res);
      else void app(req, res);
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
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
