// Helpers for the admin API and console tests: an admin token in the hub's database, JSON calls
// with it, and a console session made by logging in like a browser.
import { request } from 'undici';
import type { RunningHub } from '@rsnotify/hub';
import { createAdminToken } from '../src/admin/index.js';
import { openAdminStore } from '../src/store/admin.js';

/** An admin token in the hub's database (a SQLite file or a postgres:// URL). */
export async function adminTokenFor(db: string, name = 'ops'): Promise<string> {
  const store = await openAdminStore(db);
  try {
    return (await createAdminToken(store, name, Date.now())).token;
  } finally {
    await store.close();
  }
}

export function originOf(hub: RunningHub): string {
  return new URL(hub.url).origin;
}

export interface Reply<T = unknown> {
  status: number;
  text: string;
  data: T;
  headers: Record<string, string | string[] | undefined>;
}

export async function call<T = unknown>(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Reply<T>> {
  const res = await request(url, {
    method: (options.method ?? 'GET') as 'GET',
    headers: options.headers ?? {},
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
  const text = await res.body.text();
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  return { status: res.statusCode, text, data: data as T, headers: res.headers };
}

export function adminApi(hub: RunningHub, token: string) {
  const base = `${originOf(hub)}/admin/api`;
  return <T = unknown>(method: string, path: string, body?: unknown) =>
    call<T>(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
}

/** Logs in through POST /admin/login as a same-origin browser would; returns the cookie and CSRF token. */
export async function consoleSession(
  hub: RunningHub,
  token: string,
): Promise<{ cookie: string; csrf: string }> {
  const origin = originOf(hub);
  const login = await call(`${origin}/admin/login`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'sec-fetch-site': 'same-origin',
    },
    body: new URLSearchParams({ token }).toString(),
  });
  if (login.status !== 303) throw new Error(`login answered ${login.status}: ${login.text}`);
  const setCookie = String(login.headers['set-cookie'] ?? '');
  const cookie = setCookie.split(';')[0]!;
  const page = await call(`${origin}/admin/sources`, { headers: { cookie } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
  if (!csrf) throw new Error('no CSRF token on the Sources page');
  return { cookie, csrf };
}
