// Security of /admin: every route refuses a missing or wrong credential (401) and cross-site state
// changes (403); session state changes need the CSRF token; no page or API answer shows a token,
// hub.secret or callback capability path in full; the headers forbid inline script and framing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  hubFor,
  linkHeader,
  notificationXml,
  publish,
  receiverFor,
  subscribe,
  waitFor,
} from './helpers.js';
import { adminApi, adminTokenFor, call, consoleSession, originOf } from './admin-helpers.js';

const TOPIC = 'http://source.test/sec/changes';
const SECRET = 'the-subscribers-hub-secret-0042';
const CALLBACK_PATH = '/cb/capability-9c1d7e55aa30f2';

/** Every /admin route with a method; `:id` and `:name` are filled in. */
const ROUTES: readonly [string, string][] = [
  ['GET', '/admin'],
  ['GET', '/admin/'],
  ['GET', '/admin/sources'],
  ['POST', '/admin/sources'],
  ['POST', '/admin/sources/sec/rotate'],
  ['POST', '/admin/sources/sec/remove'],
  ['GET', '/admin/topics'],
  ['GET', '/admin/subscribers'],
  ['GET', '/admin/subscribers/1'],
  ['POST', '/admin/subscribers/1/retry'],
  ['POST', '/admin/subscribers/1/delete'],
  ['GET', '/admin/rejections'],
  ['POST', '/admin/logout'],
  ['GET', '/admin/api/openapi.json'],
  ['GET', '/admin/api/counters'],
  ['GET', '/admin/api/sources'],
  ['POST', '/admin/api/sources'],
  ['DELETE', '/admin/api/sources/sec'],
  ['POST', '/admin/api/sources/sec/rotate-token'],
  ['GET', '/admin/api/subscriptions'],
  ['GET', '/admin/api/subscriptions/1'],
  ['DELETE', '/admin/api/subscriptions/1'],
  ['POST', '/admin/api/subscriptions/1/retry-given-up'],
  ['GET', '/admin/api/topics'],
  ['GET', '/admin/api/rejections'],
];

async function securedHub(t: Parameters<typeof hubFor>[0]) {
  const { hub, dbFile } = await hubFor(t, {
    retry: { initialDelayMs: 20, maxDelayMs: 50, maxAgeMs: 300 },
    checkTopics: false,
  });
  const adminToken = await adminTokenFor(dbFile);
  const receiver = await receiverFor(t);
  const { token: sourceToken } = await hub.addSource('sec', ['http://source.test/sec/']);
  await subscribe(hub, receiver, TOPIC, CALLBACK_PATH, { 'hub.secret': SECRET });
  // One delivery given up, so the given-up views have something to show.
  receiver.deliver = 500;
  const r = await publish(hub.url, notificationXml('s1'), {
    link: linkHeader(TOPIC, hub.url),
    authorization: `Bearer ${sourceToken}`,
  });
  assert.equal(r.status, 200);
  const api = adminApi(hub, adminToken);
  await waitFor(
    async () =>
      (await api<{ subscriptions: { givenUp: number }[] }>('GET', '/subscriptions')).data
        .subscriptions[0]?.givenUp === 1,
    'given up',
  );
  receiver.deliver = 200;
  return { hub, adminToken, sourceToken, api, origin: originOf(hub) };
}

test('every /admin route answers 401 to a missing, wrong or malformed credential, and changes nothing', async (t) => {
  const { origin, api } = await securedHub(t);
  const credentials: [string, Record<string, string>][] = [
    ['none', {}],
    [
      'wrong bearer',
      { authorization: 'Bearer rsnadm_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
    ],
    ['source token as admin token', { authorization: 'Basic b3BzOm9wcw==' }],
    ['forged session cookie', { cookie: 'rsn_admin=bm90LWEtcmVhbC1zZXNzaW9uLWlkLWF0LWFsbA' }],
  ];
  for (const [method, path] of ROUTES) {
    for (const [what, headers] of credentials) {
      const body: Record<string, string> =
        method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {};
      const r = await call(`${origin}${path}`, {
        method,
        headers: { ...headers, ...body, 'sec-fetch-site': 'same-origin' },
        ...(method === 'POST' ? { body: 'name=x&topicPrefixes=http%3A%2F%2Fx.test%2F' } : {}),
      });
      assert.equal(r.status, 401, `${method} ${path} with ${what}`);
    }
  }
  const sources = await api<{ sources: unknown[] }>('GET', '/sources');
  assert.equal(sources.data.sources.length, 1, 'no refused request removed or added a Source');
  const subs = await api<{ subscriptions: unknown[] }>('GET', '/subscriptions');
  assert.equal(subs.data.subscriptions.length, 1, 'no refused request deleted the subscription');
});

test('cross-site state changes are refused (403) even with a valid credential; login too', async (t) => {
  const { origin, adminToken, api } = await securedHub(t);
  const bearer = { authorization: `Bearer ${adminToken}` };
  const crossSite: Record<string, string>[] = [
    { 'sec-fetch-site': 'cross-site' },
    { 'sec-fetch-site': 'same-site' },
    { origin: 'https://evil.example' },
    { origin: 'null' },
  ];
  for (const [method, path] of ROUTES.filter(([m]) => m !== 'GET')) {
    for (const h of crossSite) {
      const r = await call(`${origin}${path}`, {
        method,
        headers: { ...bearer, ...h, 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      });
      assert.equal(r.status, 403, `${method} ${path} with ${JSON.stringify(h)}`);
    }
  }
  const login = await call(`${origin}/admin/login`, {
    method: 'POST',
    headers: {
      origin: 'https://evil.example',
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: `token=${adminToken}`,
  });
  assert.equal(login.status, 403);
  assert.equal(login.headers['set-cookie'], undefined);
  assert.equal((await api<{ sources: unknown[] }>('GET', '/sources')).data.sources.length, 1);
  assert.equal(
    (await api<{ subscriptions: unknown[] }>('GET', '/subscriptions')).data.subscriptions.length,
    1,
  );
});

test('console sessions: HttpOnly SameSite=Strict cookie; state changes need the CSRF token', async (t) => {
  const { hub, origin, adminToken, api } = await securedHub(t);
  const login = await call(`${origin}/admin/login`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'sec-fetch-site': 'same-origin',
    },
    body: `token=${adminToken}`,
  });
  const setCookie = String(login.headers['set-cookie']);
  assert.match(setCookie, /HttpOnly/);
  assert.match(setCookie, /SameSite=Strict/);
  assert.match(setCookie, /Path=\/admin/);
  assert.ok(!setCookie.includes(adminToken), 'the cookie is a session id, not the admin token');
  const { cookie, csrf } = await consoleSession(hub, adminToken);
  const form = {
    cookie,
    'content-type': 'application/x-www-form-urlencoded',
    'sec-fetch-site': 'same-origin',
  };
  const without = await call(`${origin}/admin/sources/sec/remove`, {
    method: 'POST',
    headers: form,
    body: '',
  });
  assert.equal(without.status, 403);
  const wrong = await call(`${origin}/admin/sources/sec/remove`, {
    method: 'POST',
    headers: form,
    body: `_csrf=${csrf.slice(0, -2)}xx`,
  });
  assert.equal(wrong.status, 403);
  const apiWithout = await call(`${origin}/admin/api/sources/sec`, {
    method: 'DELETE',
    headers: { cookie, 'sec-fetch-site': 'same-origin' },
  });
  assert.equal(apiWithout.status, 403);
  assert.equal(
    (await api<{ sources: unknown[] }>('GET', '/sources')).data.sources.length,
    1,
    'nothing removed without the CSRF token',
  );
  const ok = await call(`${origin}/admin/sources/sec/remove`, {
    method: 'POST',
    headers: form,
    body: `_csrf=${encodeURIComponent(csrf)}`,
  });
  assert.equal(ok.status, 303);
  assert.equal((await api<{ sources: unknown[] }>('GET', '/sources')).data.sources.length, 0);
  const out = await call(`${origin}/admin/logout`, {
    method: 'POST',
    headers: form,
    body: `_csrf=${encodeURIComponent(csrf)}`,
  });
  assert.equal(out.status, 303);
  assert.equal(
    (await call(`${origin}/admin/sources`, { headers: { cookie } })).status,
    401,
    'the session ended at logout',
  );
});

test('no page or API answer contains a token, hub.secret or callback path in full; strict headers', async (t) => {
  const { hub, origin, adminToken, sourceToken } = await securedHub(t);
  const { cookie } = await consoleSession(hub, adminToken);
  const forbidden = [adminToken, sourceToken, SECRET, CALLBACK_PATH, cookie.split('=')[1]!];
  for (const [method, path] of ROUTES.filter(([m]) => m === 'GET')) {
    const credentials: Record<string, string>[] = [
      { authorization: `Bearer ${adminToken}` },
      { cookie },
    ];
    for (const headers of credentials) {
      const r = await call(`${origin}${path}`, { headers });
      assert.equal(r.status, 200, `${method} ${path}`);
      for (const s of forbidden) assert.ok(!r.text.includes(s), `${path} shows ${s.slice(0, 10)}…`);
      assert.match(
        String(r.headers['content-security-policy']),
        /default-src 'none'; script-src 'self'; style-src 'self'/,
      );
      assert.doesNotMatch(
        String(r.headers['content-security-policy']),
        /unsafe-inline|unsafe-eval/,
      );
      assert.equal(r.headers['x-frame-options'], 'DENY');
      assert.equal(r.headers['cache-control'], 'no-store');
    }
  }
  // The callback is shown as origin + short hash, which still tells an operator where it points.
  const subs = await call<{ subscriptions: { callback: string }[] }>(
    `${origin}/admin/api/subscriptions`,
    { headers: { authorization: `Bearer ${adminToken}` } },
  );
  const shown = subs.data.subscriptions[0]!.callback;
  assert.match(shown, /^http:\/\/127\.0\.0\.1:\d+\/\S*[0-9a-f]{8,}/);
  // The console's pages carry no inline script or style for the CSP to have to allow.
  const page = await call(`${origin}/admin/`, { headers: { cookie } });
  assert.doesNotMatch(page.text, /<script>|<style>|style="|onclick=/i);
});

test('every path in the OpenAPI document answers (not 404) with a valid token', async (t) => {
  const { api } = await securedHub(t);
  const doc = (
    await api<{ openapi: string; paths: Record<string, Record<string, unknown>> }>(
      'GET',
      '/openapi.json',
    )
  ).data;
  assert.equal(doc.openapi, '3.1.0');
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const method of Object.keys(methods)) {
      if (method === 'delete') continue; // exercised in admin-api.test.ts
      const concrete = path.replace('{id}', '1').replace('{name}', 'sec');
      const r = await api(
        method.toUpperCase(),
        concrete,
        method === 'post' && path === '/sources'
          ? { name: 'other', topicPrefixes: ['http://other.test/'] }
          : undefined,
      );
      assert.ok(
        r.status !== 404 && r.status !== 401 && r.status < 500,
        `${method} ${path} answered ${r.status}: ${r.text}`,
      );
    }
  }
});
