// At most N open connections per client address on the hub's listener. One client holding hundreds
// of connections (each slowly sending a large body, or just idle) would otherwise take file
// descriptors and body budgets from everyone else. A connection past the limit is answered
// `503 Service Unavailable` with `Connection: close` and closed before any of its request is read;
// each refusal is counted, and logged at most once per address per LOG_EVERY_MS with the count.
// Behind a reverse proxy every client has the proxy's address: raise the limit or set it to 0 (off).
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimitEvents {
  /** Each refused connection (for the metric). */
  refused(address: string): void;
  /** At most once per address per LOG_EVERY_MS: refusals since the last report. */
  report(address: string, refusedSince: number, limit: number): void;
}

const LOG_EVERY_MS = 10_000;
/** A refused client that does not close its side is cut after this long. */
const CLOSE_GRACE_MS = 2_000;

const REFUSAL =
  'HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\n' +
  'Content-Type: text/plain\r\nContent-Length: 39\r\n\r\ntoo many connections from this address\n';

/** Installs the limit on `server` (0: unlimited); returns the open count per address, for tests. */
export function limitConnectionsPerClient(
  server: Server,
  limit: number,
  events: ConnectionLimitEvents,
  now: () => number = Date.now,
): { openFrom(address: string): number } {
  const open = new Map<string, number>();
  const lastReport = new Map<string, { at: number; refused: number }>();
  if (limit > 0) {
    // After the HTTP server's own listener, so that pausing a refused socket stops its reads at the
    // handle (the HTTP server listens for 'pause' on the sockets it consumes).
    server.on('connection', (socket: Socket) => {
      const address = socket.remoteAddress ?? 'unknown';
      const count = open.get(address) ?? 0;
      if (count >= limit) {
        refuse(socket);
        events.refused(address);
        const r = lastReport.get(address) ?? { at: -Infinity, refused: 0 };
        r.refused++;
        if (now() - r.at >= LOG_EVERY_MS) {
          events.report(address, r.refused, limit);
          r.at = now();
          r.refused = 0;
        }
        lastReport.set(address, r);
        return;
      }
      open.set(address, count + 1);
      socket.once('close', () => {
        const left = (open.get(address) ?? 1) - 1;
        if (left <= 0) open.delete(address);
        else open.set(address, left);
      });
    });
  }
  return { openFrom: (address) => open.get(address) ?? 0 };
}

function refuse(socket: Socket): void {
  socket.on('error', () => undefined); // a client that resets first is no error of ours
  socket.pause(); // nothing of the request reaches the HTTP parser
  socket.end(REFUSAL);
  const cut = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
  cut.unref();
  socket.once('close', () => clearTimeout(cut));
}
