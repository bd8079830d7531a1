// The database goes away while the hub runs (PostgreSQL): publishes are answered 503 (never 200
// without a commit), /healthz says so, deliveries pause; when the server is back everything resumes
// and nothing answered 200 is lost. Runs its own server, since it stops it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHub } from '@rsnotify/hub';
import { createDatabase, startPostgres, testPostgres } from '../../scripts/postgres-server.mjs';
import {
  get,
  linkHeader,
  notificationXml,
  publish,
  postForm,
  receiverFor,
  waitFor,
} from './helpers.js';

const shared = await testPostgres(); // only to know whether PostgreSQL can run here at all
const skip = 'skip' in shared ? shared.skip : false;

test(
  'PostgreSQL lost while running: 503 for publishes, deliveries pause and resume, nothing lost',
  { skip, timeout: 240_000 },
  async (t) => {
    const pg = await startPostgres();
    if ('error' in pg) {
      t.skip(pg.error);
      return;
    }
    t.after(() => pg.stop());
    const db = createDatabase(pg.adminUrl, 'outage');
    const hub = await startHub({
      host: '127.0.0.1',
      port: 0,
      dbFile: db,
      allowPrivateNetworks: true,
      logLevel: 'silent',
      openPublishing: true,
      checkTopics: false,
      leaseMinSeconds: 1,
    });
    t.after(() => hub.close());
    const receiver = await receiverFor(t);
    const topic = 'http://source.test/outage';
    assert.equal(
      (
        await postForm(hub.url, {
          'hub.mode': 'subscribe',
          'hub.topic': topic,
          'hub.callback': receiver.url('/cb'),
        })
      ).status,
      202,
    );
    await waitFor(
      async () =>
        (JSON.parse((await get(new URL('/healthz', hub.url).href)).text) as { claims?: number })
          .claims === 1,
      'subscription claimed',
    );

    const accepted: string[] = [];
    const send = async (tag: string) => {
      const r = await publish(hub.url, notificationXml(tag), { link: linkHeader(topic, hub.url) });
      if (r.status === 200) accepted.push(tag);
      return r.status;
    };
    for (const tag of ['before-1', 'before-2']) assert.equal(await send(tag), 200);
    await waitFor(() => receiver.deliveriesTo('/cb').length === 2, 'delivered before the outage');

    pg.pause();
    // Once the pool notices, every publish is refused with 503; none is answered 200.
    const during = await waitFor(
      async () => ((await send('during')) === 503 ? 503 : undefined),
      'a 503 during the outage',
    );
    assert.equal(during, 503);
    const health = await get(new URL('/healthz', hub.url).href);
    assert.equal(health.status, 503);
    assert.equal((JSON.parse(health.text) as { database?: string }).database, 'unreachable');

    pg.resume();
    await waitFor(async () => (await send('after-1')) === 200, 'publishes accepted again', 60_000);
    assert.equal(await send('after-2'), 200);
    const tagsOf = () =>
      receiver.deliveriesTo('/cb').map((d) => /res\/([^/]+)\/0/.exec(d.body.toString())![1]);
    await waitFor(
      () => accepted.every((tag) => tagsOf().includes(tag)),
      'every accepted notification delivered after the outage',
      60_000,
    );
    assert.ok(
      !tagsOf().includes('during') || accepted.includes('during'),
      'nothing refused was delivered',
    );
    // Order: the first delivery of each accepted tag follows acceptance order.
    const firsts = [...new Set(tagsOf())].filter((x) => accepted.includes(x));
    assert.deepEqual(firsts, accepted);
  },
);
