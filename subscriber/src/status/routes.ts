// /status (HTML), /status.json and /status.css: the running daemon's per-Source status, the same
// objects as `status --json`. Served on the daemon's listen address or on a separate one
// (statusListen). With `statusToken` set, every route wants either `Authorization: Bearer
// <statusToken>` (tools) or the session cookie a person gets by typing the token into the login form
// /status shows them (POST /status/login; HttpOnly, SameSite=Strict; POST /status/logout ends it).
// The token is never echoed into a page, a URL or a cookie.
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { isCrossSiteRequest } from '@rsnotify/service-kit';
import type { SourceStatus } from './source-status.js';
import { loginPage } from './login-page.js';
import { STATUS_CSS, statusPage } from './page.js';
import { SESSION_COOKIE, StatusSessions, sameSecret, secretDigest } from './session.js';

export interface StatusRouteDeps {
  readonly status: () => Promise<SourceStatus[]>;
  readonly token?: string;
  readonly clock: () => number;
  /** Every refusal (401 without a valid token or session, 403 cross-site, 413): metric and log. */
  readonly onRejected?: (status: number, reason: string) => void;
}

const CSP =
  "default-src 'none'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
const MAX_LOGIN_BODY = 4 * 1024;

function bearer(c: Context): string | undefined {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(c.req.header('authorization') ?? '');
  return m?.[1];
}

function isHttps(c: Context): boolean {
  return new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https';
}

function crossSite(c: Context): boolean {
  return isCrossSiteRequest({
    method: c.req.method,
    secFetchSite: c.req.header('sec-fetch-site'),
    origin: c.req.header('origin'),
    host: c.req.header('host'),
  });
}

export function createStatusRoutes(deps: StatusRouteDeps): Hono {
  const app = new Hono();
  const expected = deps.token === undefined ? undefined : secretDigest(deps.token);
  const sessions = new StatusSessions(deps.clock);
  const rejected = (status: number, reason: string): void => deps.onRejected?.(status, reason);

  const headers: MiddlewareHandler = async (c, next) => {
    await next();
    c.header('content-security-policy', CSP);
    c.header('x-content-type-options', 'nosniff');
    c.header('cache-control', 'no-store');
    c.header('referrer-policy', 'no-referrer');
  };
  /** Who is asking: 'open' without a token configured, else 'bearer', 'session' or undefined. */
  const principal = (c: Context): 'open' | 'bearer' | 'session' | undefined => {
    if (expected === undefined) return 'open';
    const presented = bearer(c);
    if (presented !== undefined) return sameSecret(presented, expected) ? 'bearer' : undefined;
    return sessions.valid(getCookie(c, SESSION_COOKIE)) ? 'session' : undefined;
  };
  const guard: MiddlewareHandler = async (c, next) => {
    if (principal(c) !== undefined) return next();
    rejected(401, 'status_token');
    // A person in a browser gets the login form; a tool gets the JSON error. Both are 401.
    if (c.req.path === '/status')
      return c.html(loginPage(false), 401, { 'www-authenticate': 'Bearer' });
    return c.json(
      {
        error: 'RSN_STATUS_UNAUTHORIZED',
        message: 'the status page needs Authorization: Bearer <statusToken> or a login at /status',
      },
      401,
      { 'www-authenticate': 'Bearer' },
    );
  };
  const sameSiteOnly: MiddlewareHandler = async (c, next) => {
    if (!crossSite(c)) return next();
    rejected(403, 'cross_site');
    return c.json({ error: 'RSN_STATUS_CROSS_SITE', message: 'cross-site request refused' }, 403);
  };

  for (const path of ['/status', '/status.json', '/status.css', '/status/login', '/status/logout'])
    app.use(path, headers);
  for (const path of ['/status', '/status.json', '/status.css']) app.use(path, guard);

  app.get('/status.json', async (c) => c.json(await deps.status()));
  app.get('/status', async (c) =>
    c.html(
      statusPage(await deps.status(), new Date(deps.clock()).toISOString(), {
        logout: principal(c) === 'session',
      }),
    ),
  );
  app.get('/status.css', (c) =>
    c.body(STATUS_CSS, 200, { 'content-type': 'text/css; charset=utf-8' }),
  );

  app.post(
    '/status/login',
    sameSiteOnly,
    bodyLimit({
      maxSize: MAX_LOGIN_BODY,
      onError: (c) => {
        rejected(413, 'login_body_too_large');
        return c.json(
          { error: 'RSN_STATUS_LOGIN_TOO_LARGE', message: 'login form too large' },
          413,
        );
      },
    }),
    async (c) => {
      if (expected === undefined) return c.redirect('/status', 303);
      const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
      const token = typeof form.token === 'string' ? form.token : '';
      if (!sameSecret(token, expected)) {
        rejected(401, 'status_token');
        return c.html(loginPage(true), 401);
      }
      const session = sessions.open();
      setCookie(c, SESSION_COOKIE, session.id, {
        httpOnly: true,
        sameSite: 'Strict',
        path: '/',
        secure: isHttps(c),
        maxAge: session.maxAgeSeconds,
      });
      return c.redirect('/status', 303);
    },
  );
  app.post('/status/logout', sameSiteOnly, (c) => {
    sessions.close(getCookie(c, SESSION_COOKIE));
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.redirect('/status', 303);
  });
  return app;
}
