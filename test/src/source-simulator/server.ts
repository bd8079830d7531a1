// The socket edge: node:http (measured faster than hono for small responses in the toolchain notes,
// and it hands us the raw request target, which odd percent-encoded URIs need). Applies the serving
// faults (500s, 503s with Retry-After, slow responses), then writes what the site decided.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { RequestFate, RequestKind } from './faults.js';
import { requestKind, type SiteResponse } from './site.js';

export interface ServerHooks {
  respond(method: string, target: string, headers: IncomingMessage['headers']): SiteResponse;
  /** The fault decision for one request of this kind (path without the query). */
  fate(kind: RequestKind, path: string): RequestFate;
  /** `/_sim/*` control requests (JSON). */
  control(method: string, target: string, body: string): Promise<SiteResponse> | SiteResponse;
  onServed?(
    status: number,
    kind: RequestKind | undefined,
    req: { path: string; headers: IncomingMessage['headers']; retryAfterS?: number },
  ): void;
  onError?(err: unknown): void;
}

function plain(status: number, text: string): SiteResponse {
  const body = Buffer.from(text);
  return {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'content-length': String(body.length) },
    body,
  };
}

const MAX_CONTROL_BODY = 64 * 1024;

function write(res: ServerResponse, method: string, r: SiteResponse): void {
  res.writeHead(r.status, r.headers);
  res.end(method === 'HEAD' || !r.body ? undefined : r.body);
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_CONTROL_BODY) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export interface ListeningServer {
  readonly server: Server;
  readonly port: number;
  setHooks(hooks: ServerHooks): void;
  close(): Promise<void>;
}

export async function listen(host: string, port: number): Promise<ListeningServer> {
  let hooks: ServerHooks | undefined;
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer({ keepAliveTimeout: 10_000 }, function handleRequest(req, res) {
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    if (!hooks) {
      write(res, method, { status: 503, headers: { 'content-length': '0' } });
      return;
    }
    const h = hooks;
    const path = target.split('?')[0]!;
    const kind = requestKind(path);
    if (kind === undefined) {
      void (async () => {
        const body = method === 'POST' || method === 'PUT' ? await readBody(req) : '';
        const r =
          body === undefined
            ? plain(413, 'body too large\n')
            : await Promise.resolve()
                .then(() => h.control(method, target, body))
                .catch((err: unknown) =>
                  plain(400, `${err instanceof Error ? err.message : String(err)}\n`),
                );
        write(res, method, r);
        h.onServed?.(r.status, kind, { path, headers: req.headers });
      })().catch(() => res.destroy()); // the client went away mid-body
      return;
    }
    const fate = h.fate(kind, path);
    const finish = () => {
      let r: SiteResponse;
      const retryAfterS = fate.unavailableRetryAfterS;
      if (fate.serverError) {
        r = plain(500, 'injected server error\n');
      } else if (retryAfterS !== undefined) {
        r = plain(503, 'injected: busy, retry later\n');
        r.headers['retry-after'] = String(retryAfterS);
      } else {
        // A bug here must cost one response, not the process (promise 4: no input crashes a process).
        try {
          r = h.respond(method, target, req.headers);
        } catch (err) {
          h.onError?.(err);
          r = plain(500, 'internal error\n');
        }
      }
      write(res, method, r);
      h.onServed?.(r.status, kind, {
        path,
        headers: req.headers,
        ...(retryAfterS !== undefined ? { retryAfterS } : {}),
      });
    };
    if (fate.delayMs > 0) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!res.destroyed) finish();
      }, fate.delayMs);
      timers.add(timer);
    } else {
      finish();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  return {
    server,
    port: actualPort,
    setHooks(h) {
      hooks = h;
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
