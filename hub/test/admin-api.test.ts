// The admin API against the real hub: Sources (add, rotate, remove), subscriptions (filters, delete),
// topics, delivery health and retry of given-up items; two hub processes on one database serving the
// same answers; and the CLI's admin commands through the API (--hub) and on the database (--db).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startHub } from '@rsnotify/hub';
import { testPostgres } from '../../scripts/postgres-server.mjs';
import {
  hubFor,
  linkHeader,
  notificationXml,
  publish,
  receiverFor,
  runHubCli,
  subscribe,
  tempDir,
  waitFor,
} from './helpers.js';
import { adminApi, adminTokenFor, consoleSession, call, originOf } from './admin-helpers.js';

interface SubView {
  id: number;
  topic: string;
  callback: string;
  callbackOrigin: string;
  state: string;
  health: string;
  queueDepth: number;
  attempts: number;
  givenUp: number;
  lastError?: string;
}

test('Sources through the API: add shows the token once, rotate replaces it, remove ends it', async (t) => {
  const { hub, dbFile } = await hubFor(t, { checkTopics: false });
  const api = adminApi(hub, await adminTokenFor(dbFile));
  const added = await api<{ source: { name: string; tokenFingerprint: string }; token: string }>(
    'POST',
    '/sources',
    { name: 'lib', topicPrefixes: ['http://lib.test/'] },
  );
  assert.equal(added.status, 201);
  assert.match(added.data.token, /^rsn_/);
  const listed = await api<{ sources: Record<string, unknown>[] }>('GET', '/sources');
  assert.deepEqual(
    listed.data.sources.map((s) => s.name),
    ['lib'],
  );
  assert.ok(!listed.text.includes(added.data.token));
  assert.equal(
    (await api('POST', '/sources', { name: 'lib', topicPrefixes: ['http://lib2.test/'] })).status,
    409,
  );
  assert.equal(
    (await api('POST', '/sources', { name: 'bad name', topicPrefixes: ['http://x.test/'] })).status,
    400,
  );
  assert.equal((await api('POST', '/sources', { name: 'x' })).status, 400);

  const topic = 'http://lib.test/changes';
  const send = (token: string) =>
    publish(hub.url, notificationXml('r'), {
      link: linkHeader(topic, hub.url),
      authorization: `Bearer ${token}`,
    });
  assert.equal((await send(added.data.token)).status, 200);
  const rotated = await api<{ token: string; tokenFingerprint: string }>(
    'POST',
    '/sources/lib/rotate-token',
  );
  assert.equal(rotated.status, 200);
  assert.notEqual(rotated.data.token, added.data.token);
  await waitFor(
    async () => (await send(added.data.token)).status >= 400,
    'old token refused after rotation',
  );
  assert.equal((await send(rotated.data.token)).status, 200);
  assert.equal((await api('POST', '/sources/nope/rotate-token')).status, 404);

  assert.equal((await api('DELETE', '/sources/lib')).status, 204);
  assert.equal((await api('DELETE', '/sources/lib')).status, 404);
  await waitFor(
    async () => (await send(rotated.data.token)).status >= 400,
    'token refused after removal',
  );
});

test('subscriptions: filters by topic, callback origin, state and health; health follows the callback; delete stops deliveries', async (t) => {
  const { hub, dbFile } = await hubFor(t, {
    retry: { initialDelayMs: 20, maxDelayMs: 60, maxAgeMs: 600_000 },
    checkTopics: false,
  });
  const api = adminApi(hub, await adminTokenFor(dbFile));
  const { token } = await hub.addSource('s', ['http://s.test/']);
  const a = await receiverFor(t);
  const b = await receiverFor(t);
  await subscribe(hub, a, 'http://s.test/one', '/cb/one');
  await subscribe(hub, b, 'http://s.test/two', '/cb/two');
  await waitFor(
    async () =>
      (await api<{ subscriptions: SubView[] }>('GET', '/subscriptions')).data.subscriptions
        .length === 2,
    'two subscriptions',
  );
  const list = async (q = '') =>
    (await api<{ subscriptions: SubView[] }>('GET', `/subscriptions${q}`)).data.subscriptions;
  assert.deepEqual(
    (await list(`?topic=${encodeURIComponent('http://s.test/one')}`)).map((s) => s.topic),
    ['http://s.test/one'],
  );
  assert.deepEqual(
    (await list(`?callbackOrigin=${encodeURIComponent(b.baseUrl)}`)).map((s) => s.topic),
    ['http://s.test/two'],
  );
  assert.equal((await list('?state=active')).length, 2);
  assert.equal((await list('?state=expired')).length, 0);
  assert.equal((await list('?health=healthy')).length, 2);
  assert.equal((await api('GET', '/subscriptions?health=sick')).status, 400);

  a.deliver = 500;
  const pub = () =>
    publish(hub.url, notificationXml('h'), {
      link: linkHeader('http://s.test/one', hub.url),
      authorization: `Bearer ${token}`,
    });
  assert.equal((await pub()).status, 200);
  const failing = await waitFor(
    async () => (await list('?health=failing'))[0],
    'subscription one failing',
  );
  assert.equal(failing.topic, 'http://s.test/one');
  assert.equal(failing.queueDepth, 1);
  assert.equal(failing.lastError, 'HTTP 500');
  assert.ok(failing.attempts >= 3);
  const detail = await api<SubView & { givenUpItems: unknown[] }>(
    'GET',
    `/subscriptions/${failing.id}`,
  );
  assert.equal(detail.data.health, 'failing');
  a.deliver = 200;
  await waitFor(async () => (await list('?health=healthy')).length === 2, 'healthy again');
  assert.equal((await list(`?topic=${encodeURIComponent('http://s.test/one')}`))[0]!.queueDepth, 0);

  const two = (await list(`?topic=${encodeURIComponent('http://s.test/two')}`))[0]!;
  assert.equal((await api('DELETE', `/subscriptions/${two.id}`)).status, 204);
  assert.equal((await api('GET', `/subscriptions/${two.id}`)).status, 404);
  assert.equal((await api('DELETE', `/subscriptions/${two.id}`)).status, 404);
  assert.equal((await api('GET', '/subscriptions/abc')).status, 400);
  const before = b.deliveries.length;
  assert.equal(
    (
      await publish(hub.url, notificationXml('gone'), {
        link: linkHeader('http://s.test/two', hub.url),
        authorization: `Bearer ${token}`,
      })
    ).status,
    200,
  );
  assert.equal((await pub()).status, 200);
  await waitFor(() => a.deliveries.length >= 2, 'the other subscription still served');
  assert.equal(b.deliveries.length, before, 'a deleted subscription gets nothing more');

  const topics = (
    await api<{
      topics: { url: string; lastSeq: number; subscribers: number; ratePerMinute: number }[];
    }>('GET', '/topics')
  ).data.topics;
  const one = topics.find((x) => x.url === 'http://s.test/one')!;
  assert.equal(one.lastSeq, 2);
  assert.equal(one.subscribers, 1);
  assert.ok(one.ratePerMinute > 0);
});

test('retry given-up now: the given-up notification is delivered, signed, and leaves the list', async (t) => {
  const { hub, dbFile } = await hubFor(t, {
    retry: { initialDelayMs: 20, maxDelayMs: 40, maxAgeMs: 300 },
    checkTopics: false,
  });
  const api = adminApi(hub, await adminTokenFor(dbFile));
  const { token } = await hub.addSource('s', ['http://s.test/']);
  const r = await receiverFor(t);
  await subscribe(hub, r, 'http://s.test/g', '/cb/g', { 'hub.secret': 'retry-secret-123456' });
  r.deliver = 502;
  assert.equal(
    (
      await publish(hub.url, notificationXml('lost'), {
        link: linkHeader('http://s.test/g', hub.url),
        authorization: `Bearer ${token}`,
      })
    ).status,
    200,
  );
  const sub = await waitFor(
    async () =>
      (await api<{ subscriptions: SubView[] }>('GET', '/subscriptions')).data.subscriptions.find(
        (s) => s.givenUp === 1,
      ),
    'given up',
  );
  const detail = await api<{ givenUpItems: { seq: number; reason: string }[] }>(
    'GET',
    `/subscriptions/${sub.id}`,
  );
  assert.deepEqual(
    detail.data.givenUpItems.map((g) => g.seq),
    [1],
  );
  const stillFailing = await api<{ results: { seq: number; outcome: string; status?: number }[] }>(
    'POST',
    `/subscriptions/${sub.id}/retry-given-up`,
  );
  assert.deepEqual(stillFailing.data.results, [{ seq: 1, outcome: 'failed', status: 502 }]);
  r.deliver = 200;
  const retried = await api<{ results: { seq: number; outcome: string }[] }>(
    'POST',
    `/subscriptions/${sub.id}/retry-given-up`,
  );
  assert.deepEqual(retried.data.results, [{ seq: 1, outcome: 'delivered', status: 200 }]);
  const got = r.deliveriesTo('/cb/g');
  assert.equal(got.length, 1);
  assert.ok(got[0]!.body.toString().includes('/res/lost/'));
  assert.match(String(got[0]!.headers['x-hub-signature']), /^sha256=[0-9a-f]{64}$/);
  assert.equal((await api<SubView>('GET', `/subscriptions/${sub.id}`)).data.givenUp, 0);
  assert.equal((await api<{ givenUp: number }>('GET', '/counters')).data.givenUp, 0);
});

async function twoHubsOnOneDatabase(t: Parameters<typeof tempDir>[0], db: string): Promise<void> {
  const opts = {
    host: '127.0.0.1',
    port: 0,
    dbFile: db,
    allowPrivateNetworks: true,
    logLevel: 'silent',
    leaseMinSeconds: 1,
    checkTopics: false,
  };
  const a = await startHub(opts);
  t.after(() => a.close());
  const b = await startHub(opts);
  t.after(() => b.close());
  const token = await adminTokenFor(db);
  const apiA = adminApi(a, token);
  const apiB = adminApi(b, token);
  const added = await apiA<{ token: string }>('POST', '/sources', {
    name: 'shared',
    topicPrefixes: ['http://shared.test/'],
  });
  assert.equal(added.status, 201);
  assert.deepEqual(
    (await apiB<{ sources: { name: string }[] }>('GET', '/sources')).data.sources.map(
      (s) => s.name,
    ),
    ['shared'],
  );
  const receiver = await receiverFor(t);
  await subscribe(b, receiver, 'http://shared.test/t', '/cb/shared');
  await waitFor(
    async () =>
      (await apiA<{ subscriptions: unknown[] }>('GET', '/subscriptions')).data.subscriptions
        .length === 1,
    'A sees the subscription made on B',
  );
  // A publish refused by A shows in B's rejection list.
  assert.ok(
    (
      await publish(a.url, notificationXml('x'), {
        link: linkHeader('http://shared.test/t', a.url),
        authorization: 'Bearer rsn_wrong-wrong-wrong-wrong',
      })
    ).status >= 400,
  );
  await waitFor(
    async () =>
      (await apiB<{ rejections: unknown[] }>('GET', '/rejections')).data.rejections.length === 1,
    "B lists A's rejection",
  );
  // A token rotated through B stops working on A.
  const publishOnA = (tok: string) =>
    publish(a.url, notificationXml('y'), {
      link: linkHeader('http://shared.test/t', a.url),
      authorization: `Bearer ${tok}`,
    });
  assert.equal((await publishOnA(added.data.token)).status, 200);
  const rotated = await apiB<{ token: string }>('POST', '/sources/shared/rotate-token');
  await waitFor(
    async () => (await publishOnA(added.data.token)).status >= 400,
    'A refuses the old token',
  );
  assert.equal((await publishOnA(rotated.data.token)).status, 200);
  // A console session made on A works on B.
  const { cookie } = await consoleSession(a, token);
  assert.equal((await call(`${originOf(b)}/admin/sources`, { headers: { cookie } })).status, 200);
  const ca = (await apiA<Record<string, number>>('GET', '/counters')).data;
  const cb = (await apiB<Record<string, number>>('GET', '/counters')).data;
  assert.equal(ca.activeSubscriptions, 1);
  assert.equal(cb.activeSubscriptions, 1);
  assert.equal(ca.rejectionsLastHour, cb.rejectionsLastHour);
}

test('two hub processes on one SQLite file: tokens, sessions, Sources, subscriptions and rejections seen by both', async (t) => {
  await twoHubsOnOneDatabase(t, join(await tempDir(t), 'hub.db'));
});

const pgServer = await testPostgres();
test(
  'two hub processes on one PostgreSQL database: the console reads the shared store',
  { skip: 'skip' in pgServer ? pgServer.skip : false },
  async (t) => {
    if ('skip' in pgServer) return;
    await twoHubsOnOneDatabase(t, pgServer.newDatabase('console'));
  },
);

test('CLI: admin token create prints the token once; admin commands work through --hub and on --db', async (t) => {
  const { hub, dbFile } = await hubFor(t, { checkTopics: false });
  const created = await runHubCli(['admin', 'token', 'create', 'cli-ops', '--db', dbFile]);
  assert.equal(created.code, 0);
  const token = created.lines.find((l) => /^rsnadm_/.test(l));
  assert.ok(token, 'the token is printed');
  assert.equal((await adminApi(hub, token)('GET', '/sources')).status, 200);
  const listed = await runHubCli(['admin', 'token', 'list', '--db', dbFile]);
  assert.equal(listed.code, 0);
  assert.ok(listed.lines.some((l) => l.includes('"cli-ops"')));
  assert.ok(!listed.lines.some((l) => l.includes(token)), 'token list shows fingerprints only');

  const add = await runHubCli([
    'admin',
    'sources',
    'add',
    'viaapi',
    '--topic-prefix',
    'http://viaapi.test/',
    '--hub',
    hub.url,
    '--admin-token',
    token,
  ]);
  assert.equal(add.code, 0, add.lines.join('\n'));
  assert.ok(add.lines.some((l) => /"token":"rsn_/.test(l)));
  const viaDb = await runHubCli(['admin', 'sources', 'list', '--db', dbFile]);
  assert.ok(viaDb.lines.some((l) => l.includes('"viaapi"')));
  const viaEnv = await runHubCli(['admin', 'topics', '--hub', hub.url], {
    RSNOTIFY_HUB_ADMIN_TOKEN: token,
  });
  assert.equal(viaEnv.code, 0, viaEnv.lines.join('\n'));
  const wrong = await runHubCli([
    'admin',
    'sources',
    'list',
    '--hub',
    hub.url,
    '--admin-token',
    'rsnadm_wrong',
  ]);
  assert.notEqual(wrong.code, 0);
  assert.ok(wrong.lines.some((l) => l.includes('401')));
  const revoked = await runHubCli(['admin', 'token', 'revoke', 'cli-ops', '--db', dbFile]);
  assert.equal(revoked.code, 0);
  assert.equal((await adminApi(hub, token)('GET', '/sources')).status, 401);
});
