// hub.secret at rest with the PostgreSQL store: the same codec seals what the hub stores (the
// subscriptions.secret column never holds the secret) and deliveries are still signed with it
// (WH-16, checked with the subscriber's own verifySignature).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startHub } from '@rsnotify/hub';
import { verifySignature } from '@rsnotify/shared';
import { testPostgres } from '../../scripts/postgres-server.mjs';
import { createSecretKeyFile } from '../src/secrets/index.js';
import {
  linkHeader,
  notificationXml,
  publish,
  receiverFor,
  subscribe,
  tempDir,
  waitFor,
} from './helpers.js';

const server = await testPostgres();
const TOPIC = 'http://source.test/sealed-pg/topic';
const SECRET = 'a-postgres-secret-sealed';

test(
  'PostgreSQL: the stored hub.secret is sealed, and the delivery signature verifies',
  { skip: 'skip' in server ? server.skip : false, timeout: 120_000 },
  async (t) => {
    if ('skip' in server) return;
    const db = server.newDatabase('sealed');
    const keyFile = `${await tempDir(t)}/hub.key`;
    createSecretKeyFile(keyFile);
    const hub = await startHub({
      host: '127.0.0.1',
      port: 0,
      dbFile: db,
      allowPrivateNetworks: true,
      logLevel: 'silent',
      checkTopics: false,
      secretKeyFile: keyFile,
    });
    t.after(() => hub.close());
    const r = await receiverFor(t);
    const { token } = await hub.addSource('src', ['http://source.test/sealed-pg/']);
    await subscribe(hub, r, TOPIC, '/pg', { 'hub.secret': SECRET });
    const client = new pg.Client({ connectionString: db });
    await client.connect();
    try {
      const rows = (await client.query('SELECT secret FROM subscriptions')).rows as {
        secret: string;
      }[];
      assert.equal(rows.length, 1);
      assert.ok(rows[0]!.secret.startsWith('rsn-sealed:v1:'), rows[0]!.secret);
      assert.ok(!rows[0]!.secret.includes(SECRET));
    } finally {
      await client.end();
    }
    const headers = { authorization: `Bearer ${token}`, link: linkHeader(TOPIC, hub.url) };
    assert.equal((await publish(hub.url, notificationXml('pg'), headers)).status, 200);
    const [d] = await waitFor(
      () => (r.deliveriesTo('/pg').length ? r.deliveriesTo('/pg') : undefined),
      'delivery',
    );
    assert.deepEqual(verifySignature(d!.headers['x-hub-signature'] as string, SECRET, d!.body), {
      ok: true,
      method: 'sha256',
    });
  },
);
