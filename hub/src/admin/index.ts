// admin/: the operator console and admin API, mounted at /admin by app.ts. Everything here reads the
// shared store (AdminStore, HubRepository), so any hub process of a cluster serves the same console.
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { answerRefusal } from '../app.js';
import { hashToken } from '../tenants/index.js';
import { createAdminApi, refuseJson } from './api.js';
import { CONSOLE_CSS, CONSOLE_JS } from './assets.js';
import {
  crossSiteGuard,
  generateSessionId,
  requireAdmin,
  SESSION_COOKIE,
  SESSION_TTL_MS,
  type AdminEnv,
} from './auth.js';
import { createConsolePages } from './console.js';
import type { AdminService } from './service.js';
import type { AdminStore } from './store.js';
import { loginPage } from './views.js';

export { AdminService, AdminError, type SourceView, type SubscriptionView } from './service.js';
export type * from './store.js';
export { createAdminToken } from './auth.js';
import { recordRejections, rejectionRecorder } from './rejections.js';
export type { RejectionRecorder } from './rejections.js';
import type { Logger } from '../observability/index.js';
export { deliveryHealth, type DeliveryHealth } from './health.js';

export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export interface AdminAppDeps {
  readonly service: AdminService;
  readonly store: AdminStore;
  readonly now: () => number;
}

function isHttps(c: Context): boolean {
  return new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https';
}

export function createAdminApp(deps: AdminAppDeps): Hono<AdminEnv> {
  const { store, now } = deps;
  const app = new Hono<AdminEnv>();
  app.use('*', async (c, next) => {
    await next();
    c.header('content-security-policy', CONTENT_SECURITY_POLICY);
    c.header('x-content-type-options', 'nosniff');
    c.header('x-frame-options', 'DENY');
    c.header('referrer-policy', 'same-origin');
    if (!c.req.path.startsWith('/admin/static/')) c.header('cache-control', 'no-store');
  });
  app.use(
    '*',
    bodyLimit({
      maxSize: 64 * 1024,
      onError: (c) => refuseJson(c, 'too-large', 'RSN_ADMIN_TOO_LARGE', 'body larger than 64 KiB'),
    }),
  );
  app.use('*', crossSiteGuard());

  app.get('/static/console.css', (c) =>
    c.body(CONSOLE_CSS, 200, {
      'content-type': 'text/css; charset=utf-8',
      'cache-control': 'max-age=300',
    }),
  );
  app.get('/static/console.js', (c) =>
    c.body(CONSOLE_JS, 200, {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'max-age=300',
    }),
  );

  app.post('/login', async (c) => {
    const form = await c.req.parseBody();
    const token = typeof form.token === 'string' ? form.token.trim() : '';
    const record = token ? await store.findAdminTokenByHash(hashToken(token)) : undefined;
    if (!record) return c.html(loginPage('That admin token is not valid.'), 401);
    const session = generateSessionId();
    const at = now();
    await store.createSession({
      sessionHash: hashToken(session),
      adminTokenId: record.id,
      now: at,
      expiresAt: at + SESSION_TTL_MS,
    });
    await store.touchAdminToken(record.id, at);
    setCookie(c, SESSION_COOKIE, session, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/admin',
      secure: isHttps(c),
      maxAge: Math.floor(SESSION_TTL_MS / 1000),
    });
    return c.redirect('/admin/', 303);
  });

  app.use(
    '/api/*',
    requireAdmin(store, now, (c) =>
      refuseJson(
        c,
        'unauthorized',
        'RSN_ADMIN_UNAUTHORIZED',
        'an admin token is required (Authorization: Bearer ...)',
      ),
    ),
  );
  app.route('/api', createAdminApi(deps.service));

  app.use(
    '*',
    requireAdmin(store, now, (c) => c.html(loginPage(), 401)),
  );
  app.post('/logout', async (c) => {
    const session = getCookie(c, SESSION_COOKIE);
    if (session) await store.deleteSession(hashToken(session));
    deleteCookie(c, SESSION_COOKIE, { path: '/admin' });
    return c.redirect('/admin/', 303);
  });
  app.route('/', createConsolePages(deps.service));
  app.notFound((c) => answerRefusal(c, 'not-found', 'not found'));
  return app;
}

export interface HubAdminDeps {
  readonly store: AdminStore;
  readonly service: AdminService;
  readonly now: () => number;
  readonly logger: Logger;
}

/**
 * What the hub mounts: the /admin app, and the rejection recorder that the hub endpoint
 * (hub-endpoint.ts) tells of its refusals and that app.ts puts around the hub path's other routes.
 */
export function hubAdmin(deps: HubAdminDeps) {
  const recordRejection = rejectionRecorder(deps.store, deps.now, deps.logger);
  return {
    app: createAdminApp(deps),
    recordRejection,
    recordRejections: recordRejections(recordRejection),
  };
}
export { AdminCliError, registerAdminCommands } from './cli.js';
