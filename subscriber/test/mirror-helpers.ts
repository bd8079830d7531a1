// Test helpers for the DATA tests (mirror-*, catchup-*, baseline-*, audit-*): a fake Source that
// speaks real HTTP on 127.0.0.1 (a party outside the project, so a fake is allowed), and an in-memory
// ResourceStateStore (the real one is the daemon's SQLite store; the interface is all the mirror sees).
import { resourceSyncXml } from '@rsnotify/service-kit/testing';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { computeHashList, formatHashList } from '@rsnotify/shared';
import type { ResourceStateStore } from '../src/mirror/index.js';
import * as kit from '@rsnotify/service-kit/testing';

export type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  hit: number,
) => void | Promise<void>;

export interface FakeSource {
  readonly baseUrl: string;
  /** Routes by path + query as requested (`/a/b?x=1`). */
  route(path: string, handler: Handler): void;
  /** Serves fixed bytes with 200. */
  serve(path: string, body: string | Buffer, headers?: Record<string, string>): void;
  /** Requests seen, in arrival order. */
  readonly log: { path: string; at: number }[];
  hits(path: string): number;
  /** Highest number of requests in flight at once. */
  readonly maxInFlight: number;
  close(): Promise<void>;
}

export async function startFakeSource(): Promise<FakeSource> {
  const routes = new Map<string, Handler>();
  const log: { path: string; at: number }[] = [];
  const counts = new Map<string, number>();
  let inFlight = 0;
  let maxInFlight = 0;
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    log.push({ path, at: Date.now() });
    const hit = (counts.get(path) ?? 0) + 1;
    counts.set(path, hit);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => {
      inFlight--;
    });
    const handler = routes.get(path);
    if (!handler) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    Promise.resolve(handler(req, res, hit)).catch((err) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    route(path, handler) {
      routes.set(path, handler);
    },
    serve(path, body, headers = {}) {
      routes.set(path, (_req, res) => {
        const bytes = typeof body === 'string' ? Buffer.from(body) : body;
        res
          .writeHead(200, {
            'content-type': 'application/octet-stream',
            'content-length': String(bytes.length),
            ...headers,
          })
          .end(bytes);
      });
    },
    log,
    hits(path) {
      return counts.get(path) ?? 0;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function memoryStateStore(): ResourceStateStore & {
  readonly rows: Map<
    string,
    { lastChangeKey?: string; sha256?: string; length?: number; path: string }
  >;
} {
  const rows = new Map<
    string,
    { lastChangeKey?: string; sha256?: string; length?: number; path: string }
  >();
  return {
    rows,
    async get(uri) {
      return rows.get(uri);
    },
    async set(uri, state) {
      if (state === null) rows.delete(uri);
      else rows.set(uri, state);
    },
  };
}

export const tempDir = (prefix = 'rsn-data-'): ReturnType<typeof kit.tempDir> =>
  kit.tempDir(prefix);

export const sleep = kit.sleep;

/** Polls until `check` returns true, failing after `timeoutMs`. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  await kit.waitFor(check, { timeoutMs, what, intervalMs: 10 });
}

/** A Resource List (RC-14) over the given items; hashes computed unless given. */
export function resourceList(
  base: string,
  at: string,
  items: { path: string; body: string; hash?: string }[],
): string {
  return resourceSyncXml({
    capability: 'resourcelist',
    md: { at },
    links: [{ rel: 'up', href: `${base}/capabilitylist.xml` }],
    entries: items.map((i) => {
      const bytes = Buffer.from(i.body);
      const hash = i.hash ?? formatHashList(computeHashList(bytes, ['md5', 'sha-256']));
      return { loc: `${base}${i.path}`, hash, length: bytes.length };
    }),
  });
}
