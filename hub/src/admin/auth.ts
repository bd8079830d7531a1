// Who may use /admin: a bearer admin token (API, CLI) or a console session cookie made by logging in
// with one. Tokens and session ids are random, shown once, and stored only as sha256 hashes; lookups
// go to the shared store, so a token made on one hub process works on all of them.
// Browser safety: the cookie is HttpOnly and SameSite=Strict, every state change made with it must
// carry the session's CSRF token, and any state change whose Origin or Sec-Fetch-Site says it came
// from another site is refused whatever credentials it carries.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { isCrossSiteRequest } from '@rsnotify/service-kit';
import { answerRefusalJson } from '../app.js';
import { bearerToken, hashToken } from '../tenants/index.js';
import { AdminError } from './admin-error.js';
import type { AdminStore, AdminTokenRecord } from './store.js';

export const SESSION_COOKIE = 'rsn_admin';
export const SESSION_TTL_MS = 12 * 3_600_000;

export function generateAdminToken(): string {
  return `rsnadm_${randomBytes(32).toString('base64url')}`;
}

export function generateSessionId(): string {
  return randomBytes(32).toString('base64url');
}

/** The CSRF token of a session: derived from its id, so nothing more is stored. */
export function csrfTokenFor(sessionId: string): string {
  return createHmac('sha256', sessionId).update('rsnotify-admin-csrf').digest('base64url');
}

function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface AdminPrincipal {
  readonly token: AdminTokenRecord;
  readonly via: 'bearer' | 'session';
  /** Set for session logins: what forms and fetches must echo back. */
  readonly csrf?: string;
}

export type AdminEnv = { Variables: { principal: AdminPrincipal } };

export async function authenticate(
  c: Context,
  store: AdminStore,
  now: number,
): Promise<AdminPrincipal | undefined> {
  const bearer = bearerToken(c.req.header('authorization'));
  if (bearer !== undefined) {
    const token = await store.findAdminTokenByHash(hashToken(bearer));
    if (!token) return undefined;
    if (token.lastUsedAt === undefined || now - token.lastUsedAt > 60_000)
      await store.touchAdminToken(token.id, now);
    return { token, via: 'bearer' };
  }
  const session = getCookie(c, SESSION_COOKIE);
  if (session === undefined || session.length < 20) return undefined;
  const token = await store.findSession(hashToken(session), now);
  return token ? { token, via: 'session', csrf: csrfTokenFor(session) } : undefined;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A state change sent from another site (by a form or script there): refused before anything else. */
export function isCrossSite(c: Context): boolean {
  return isCrossSiteRequest({
    method: c.req.method,
    secFetchSite: c.req.header('sec-fetch-site'),
    origin: c.req.header('origin'),
    host: c.req.header('host'),
  });
}

export function crossSiteGuard(): MiddlewareHandler {
  return async (c, next) => {
    if (isCrossSite(c))
      return answerRefusalJson(c, 'forbidden', {
        error: 'RSN_ADMIN_CROSS_SITE',
        message: 'cross-site request refused',
      });
    return next();
  };
}

/**
 * Requires an admin; `onMissing` answers 401 (JSON for the API, the login page for the console).
 * Session-authenticated state changes must present the CSRF token (form field `_csrf` or header
 * `x-csrf-token`); bearer requests cannot be forged by a browser and need none.
 */
export function requireAdmin(
  store: AdminStore,
  now: () => number,
  onMissing: (c: Context) => Response | Promise<Response>,
): MiddlewareHandler<AdminEnv> {
  return async (c, next) => {
    const principal = await authenticate(c, store, now());
    if (!principal) return onMissing(c);
    if (principal.via === 'session' && !SAFE_METHODS.has(c.req.method)) {
      let presented = c.req.header('x-csrf-token');
      if (
        presented === undefined &&
        (c.req.header('content-type') ?? '').startsWith('application/x-www-form-urlencoded')
      ) {
        const form = await c.req.parseBody();
        presented = typeof form._csrf === 'string' ? form._csrf : undefined;
      }
      if (presented === undefined || !sameString(presented, principal.csrf!)) {
        return answerRefusalJson(c, 'forbidden', {
          error: 'RSN_ADMIN_CSRF',
          message: 'missing or wrong CSRF token',
        });
      }
    }
    c.set('principal', principal);
    return next();
  };
}

/** `rsnotify-hub admin token create NAME`: the token is returned once; only its hash is stored. */
export async function createAdminToken(
  store: AdminStore,
  name: string,
  now: number,
): Promise<{ token: string; record: AdminTokenRecord }> {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(name)) {
    throw new AdminError(
      'RSN_ADMIN_BAD_TOKEN_NAME',
      'an admin token name is 1-100 letters, digits, ".", "_" or "-"',
    );
  }
  const token = generateAdminToken();
  const record = await store.addAdminToken({ name, tokenHash: hashToken(token), now });
  return { token, record };
}
