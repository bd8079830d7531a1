// /status (HTML), /status.json and /status.css: the running daemon's per-Source status, the same
// objects as `status --json`. Served on the daemon's listen address or on a separate one
// (statusListen); with `statusToken` set, every route wants `Authorization: Bearer <statusToken>`.
import { createHash, timingSafeEqual } from 'node:crypto';
import { Hono, type MiddlewareHandler } from 'hono';
import type { SourceStatus } from './index.js';
import { STATUS_CSS, statusPage } from './page.js';

export interface StatusRouteDeps {
  readonly status: () => Promise<SourceStatus[]>;
  readonly token?: string;
  readonly clock: () => number;
}

const CSP =
  "default-src 'none'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

function bearerGuard(token: string | undefined): MiddlewareHandler {
  const expected = token === undefined ? undefined : digest(token);
  return async (c, next) => {
    if (expected !== undefined) {
      const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(c.req.header('authorization') ?? '');
      if (!m || !timingSafeEqual(digest(m[1]!), expected)) {
        return c.json(
          {
            error: 'RSN_STATUS_UNAUTHORIZED',
            message: 'the status page needs Authorization: Bearer <statusToken>',
          },
          401,
          { 'www-authenticate': 'Bearer' },
        );
      }
    }
    await next();
    c.header('content-security-policy', CSP);
    c.header('x-content-type-options', 'nosniff');
    c.header('cache-control', 'no-store');
  };
}

export function createStatusRoutes(deps: StatusRouteDeps): Hono {
  const app = new Hono();
  const guard = bearerGuard(deps.token);
  app.use('/status', guard);
  app.use('/status.json', guard);
  app.use('/status.css', guard);
  app.get('/status.json', async (c) => c.json(await deps.status()));
  app.get('/status', async (c) =>
    c.html(statusPage(await deps.status(), new Date(deps.clock()).toISOString())),
  );
  app.get('/status.css', (c) =>
    c.body(STATUS_CSS, 200, { 'content-type': 'text/css; charset=utf-8' }),
  );
  return app;
}
