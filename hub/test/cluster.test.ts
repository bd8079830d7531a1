// Several hubs on one PostgreSQL database (in one test process; the kill -9 runs are in
// test/e2e/hub-cluster.test.ts): cross-process wake-ups, claims spread over the live hubs, a clean
// stop hands claims over, and --db parsing and connection failures give one clear line each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHub, type RunningHub } from '@rsnotify/hub';
import { testPostgres } from '../../scripts/postgres-server.mjs';
import { fairShareStep } from '../src/cluster/index.js';
import { parseDbLocation } from '../src/store/index.js';
import {
  get,
  linkHeader,
  notificationXml,
  publish,
  postForm,
  receiverFor,
  runHubCli,
  waitFor,
} from './helpers.js';

const server = await testPostgres();
const skip = 'skip' in server ? server.skip : false;
const pgDb = () => ('skip' in server ? '' : server.newDatabase('cluster'));

async function clusterHub(t: import('node:test').TestContext, dbFile: string): Promise<RunningHub> {
  const hub = await startHub({
    host: '127.0.0.1',
    port: 0,
    dbFile,
    allowPrivateNetworks: true,
    logLevel: 'silent',
    leaseMinSeconds: 1,
    openPublishing: true,
    checkTopics: false,
  });
  t.after(() => hub.close());
  return hub;
}

async function health(hub: RunningHub): Promise<Record<string, unknown>> {
  return JSON.parse((await get(new URL('/healthz', hub.url).href)).text) as Record<string, unknown>;
}

test('fair share: claim up to ceil(active/live), hand back only above one extra', () => {
  const cases: [number, number, number, number][] = [
    // owned, active, live, step
    [0, 20, 3, 7],
    [7, 20, 3, 0],
    [8, 20, 3, 0],
    [20, 20, 3, -13],
    [9, 20, 2, 1],
    [10, 20, 2, 0],
    [0, 0, 3, 0],
    [5, 5, 1, 0],
  ];
  for (const [owned, active, live, step] of cases)
    assert.equal(fairShareStep(owned, active, live), step, `${owned}/${active}/${live}`);
});

test('--db: a path is SQLite, postgres:// is PostgreSQL, any other scheme is refused', async () => {
  assert.deepEqual(parseDbLocation('./data/hub.db'), { engine: 'sqlite', file: './data/hub.db' });
  assert.deepEqual(parseDbLocation('/var/lib/hub.db'), {
    engine: 'sqlite',
    file: '/var/lib/hub.db',
  });
  assert.equal(parseDbLocation('postgres://u@h:5432/d').engine, 'postgres');
  assert.equal(parseDbLocation('postgresql://u@h/d').engine, 'postgres');
  for (const bad of ['mysql://u@h/d', 'http://h/x', 'file:///tmp/x.db', 'sqlite:x.db']) {
    assert.throws(() => parseDbLocation(bad), { code: 'RSN_STORE_BAD_URL' }, bad);
  }
  await assert.rejects(
    startHub({ port: 0, dbFile: 'mysql://root@127.0.0.1/hub', logLevel: 'silent' }),
    /scheme "mysql:" is not supported/,
  );
});

test(
  'PostgreSQL: a subscriber verified through hub A receives a notification published to hub B',
  { skip },
  async (t) => {
    const db = pgDb();
    const a = await clusterHub(t, db);
    const b = await clusterHub(t, db);
    const receiver = await receiverFor(t);
    const topic = 'http://source.test/notifications';
    const sub = await postForm(a.url, {
      'hub.mode': 'subscribe',
      'hub.topic': topic,
      'hub.callback': receiver.url('/cb/1'),
    });
    assert.equal(sub.status, 202);
    await waitFor(() => receiver.verificationsTo('/cb/1').length > 0, 'verification');
    // The subscription is claimed by one of the two hubs (whichever); wait until it is driven.
    await waitFor(
      async () => ((await health(a)).claims as number) + ((await health(b)).claims as number) === 1,
      'one claim in the cluster',
    );
    const r = await publish(b.url, notificationXml('x'), { link: linkHeader(topic, b.url) });
    assert.equal(r.status, 200);
    const [d] = await waitFor(
      () => (receiver.deliveriesTo('/cb/1').length ? receiver.deliveriesTo('/cb/1') : undefined),
      'delivery',
    );
    assert.match(d!.body.toString(), /res\/x\/0/);
    const ha = await health(a);
    assert.equal(ha.engine, 'postgres');
    assert.equal(ha.database, 'ok');
    // liveNodes is what A's last heartbeat (every second) counted: it may have run before B
    // registered, and the delivery can land sooner than A's next one.
    await waitFor(async () => (await health(a)).liveNodes === 2, 'hub A counting both hubs live');
  },
);

test(
  'PostgreSQL: claims spread over the live hubs, and a clean stop hands them to the others',
  { skip },
  async (t) => {
    const db = pgDb();
    const a = await clusterHub(t, db);
    const b = await clusterHub(t, db);
    const receiver = await receiverFor(t);
    const topic = 'http://source.test/spread';
    for (let i = 0; i < 6; i++) {
      assert.equal(
        (
          await postForm(a.url, {
            'hub.mode': 'subscribe',
            'hub.topic': topic,
            'hub.callback': receiver.url(`/s/${i}`),
          })
        ).status,
        202,
      );
    }
    await waitFor(
      async () => {
        const [x, y] = [(await health(a)).claims as number, (await health(b)).claims as number];
        return x + y === 6 && x >= 2 && y >= 2;
      },
      'six claims spread over two hubs',
      30_000,
    );
    await a.close();
    await waitFor(
      async () => (await health(b)).claims === 6,
      'hub B drives all six after A stopped',
      30_000,
    );
    assert.equal(
      (await publish(b.url, notificationXml('after'), { link: linkHeader(topic, b.url) })).status,
      200,
    );
    await waitFor(
      () => [0, 1, 2, 3, 4, 5].every((i) => receiver.deliveriesTo(`/s/${i}`).length === 1),
      'each of the six got it once',
    );
  },
);

test(
  'PostgreSQL faults: unreachable host, wrong password, missing database: one clear line each',
  { skip },
  async () => {
    if ('skip' in server) return;
    const admin = new URL(server.adminUrl);
    const closedPort = `postgres://rsnotify:x@127.0.0.1:1/postgres`;
    await assert.rejects(
      startHub({ port: 0, dbFile: closedPort, logLevel: 'silent' }),
      (err: Error & { code?: string }) =>
        err.code === 'RSN_STORE_UNREACHABLE' &&
        /cannot reach PostgreSQL at 127\.0\.0\.1:1: connection refused/.test(err.message),
    );
    const wrongPassword = new URL(admin.href);
    wrongPassword.password = 'not-the-password';
    await assert.rejects(
      startHub({ port: 0, dbFile: wrongPassword.href, logLevel: 'silent' }),
      (err: Error & { code?: string }) =>
        err.code === 'RSN_STORE_AUTH_FAILED' &&
        /refused the password of user "rsnotify"/.test(err.message) &&
        !err.message.includes('not-the-password'),
    );
    const missing = new URL(admin.href);
    missing.pathname = '/no_such_database';
    await assert.rejects(
      startHub({ port: 0, dbFile: missing.href, logLevel: 'silent' }),
      (err: Error & { code?: string }) =>
        err.code === 'RSN_STORE_NO_DATABASE' &&
        /database "no_such_database" does not exist on PostgreSQL at 127\.0\.0\.1:\d+/.test(
          err.message,
        ),
    );
  },
);

test('CLI: database unreachable at start is one fatal line naming the host, exit non-zero; an unknown scheme too', async () => {
  const down = await runHubCli([
    'serve',
    '--port',
    '0',
    '--db',
    'postgres://hub:secret-pw@127.0.0.1:1/hub',
  ]);
  assert.notEqual(down.code, 0);
  const line = down.lines.find((l) => l.startsWith('rsnotify-hub:'));
  assert.match(line ?? '', /cannot reach PostgreSQL at 127\.0\.0\.1:1: connection refused/);
  assert.ok(!down.lines.join('\n').includes('secret-pw'), 'the password is never printed');
  const scheme = await runHubCli(['serve', '--port', '0', '--db', 'mysql://root@127.0.0.1/hub']);
  assert.notEqual(scheme.code, 0);
  assert.match(scheme.lines.join('\n'), /scheme "mysql:" is not supported/);
});
