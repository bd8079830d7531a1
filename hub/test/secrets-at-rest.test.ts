// hub.secret at rest: with a key file (rsnotify-hub secret-key create, mode 0600) the stored secret
// column never holds the secret, deliveries are still signed with it (WH-16, checked with the
// subscriber's own verifySignature), rows stored before the key are still read, and a wrong or
// missing key stops the hub at start with one clear message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startHub, type RunningHub } from '@rsnotify/hub';
import { verifySignature } from '@rsnotify/shared';
import {
  linkHeader,
  notificationXml,
  publish,
  receiverFor,
  runHubCli,
  subscribe,
  tempDir,
  waitFor,
  type Receiver,
} from './helpers.js';

const TOPIC = 'http://source.test/sealed/topic';
const OLD_SECRET = 'plaintext-from-before-the-key';
const NEW_SECRET = 'a-secret-sealed-at-rest';

function storedSecrets(dbFile: string): string[] {
  const db = new Database(dbFile, { readonly: true });
  try {
    const rows = db.prepare('SELECT secret FROM subscriptions WHERE secret IS NOT NULL').all() as {
      secret: string;
    }[];
    return rows.map((r) => r.secret);
  } finally {
    db.close();
  }
}

async function start(dbFile: string, secretKeyFile?: string): Promise<RunningHub> {
  return startHub({
    host: '127.0.0.1',
    port: 0,
    dbFile,
    allowPrivateNetworks: true,
    logLevel: 'silent',
    checkTopics: false,
    ...(secretKeyFile ? { secretKeyFile } : {}),
  });
}

async function publishAndCheck(
  hub: RunningHub,
  token: string,
  r: Receiver,
  path: string,
  secret: string,
  tag: string,
): Promise<void> {
  const headers = { authorization: `Bearer ${token}`, link: linkHeader(TOPIC, hub.url) };
  const before = r.deliveriesTo(path).length;
  assert.equal((await publish(hub.url, notificationXml(tag), headers)).status, 200);
  await waitFor(() => r.deliveriesTo(path).length > before, `delivery to ${path}`);
  const d = r.deliveriesTo(path).at(-1)!;
  const check = verifySignature(d.headers['x-hub-signature'] as string, secret, d.body);
  assert.deepEqual(check, { ok: true, method: 'sha256' }, `signature at ${path}`);
}

test('secret-key create writes a 0600 key file once and prints only its id', async (t) => {
  const dir = await tempDir(t);
  const keyFile = join(dir, 'hub.key');
  const made = await runHubCli(['secret-key', 'create', keyFile]);
  assert.equal(made.code, 0, made.lines.join('\n'));
  assert.equal(statSync(keyFile).mode & 0o777, 0o600);
  const key = readFileSync(keyFile, 'utf8').trim();
  assert.equal(Buffer.from(key, 'base64').length, 32);
  assert.ok(!made.lines.join('\n').includes(key), 'the key itself is never printed');
  assert.ok(made.lines.some((l) => l.includes('"keyId"')));
  const again = await runHubCli(['secret-key', 'create', keyFile]);
  assert.notEqual(again.code, 0);
  assert.ok(again.lines.some((l) => l.includes('exists already')));
  assert.equal(readFileSync(keyFile, 'utf8').trim(), key, 'never overwritten');
});

test('with a key: the stored column is not the secret, old plaintext rows still sign, a wrong key stops the start', async (t) => {
  const dir = await tempDir(t);
  const dbFile = join(dir, 'hub.db');
  const keyFile = join(dir, 'hub.key');
  const otherKey = join(dir, 'other.key');
  assert.equal((await runHubCli(['secret-key', 'create', keyFile])).code, 0);
  assert.equal((await runHubCli(['secret-key', 'create', otherKey])).code, 0);
  const r = await receiverFor(t);

  // Before the key: a plaintext row.
  let hub = await start(dbFile);
  const { token } = await hub.addSource('src', ['http://source.test/sealed/']);
  await subscribe(hub, r, TOPIC, '/old', { 'hub.secret': OLD_SECRET });
  await hub.close();
  assert.deepEqual(storedSecrets(dbFile), [OLD_SECRET]);

  // With the key: the old row still signs; a new secret is stored sealed.
  hub = await start(dbFile, keyFile);
  try {
    await subscribe(hub, r, TOPIC, '/new', { 'hub.secret': NEW_SECRET });
    const stored = storedSecrets(dbFile);
    assert.equal(stored.length, 2);
    const sealed = stored.find((s) => s !== OLD_SECRET)!;
    assert.ok(sealed.startsWith('rsn-sealed:v1:'), sealed);
    assert.ok(!sealed.includes(NEW_SECRET));
    assert.ok(!sealed.includes(Buffer.from(NEW_SECRET).toString('base64')));
    await publishAndCheck(hub, token, r, '/new', NEW_SECRET, 'one');
    await publishAndCheck(hub, token, r, '/old', OLD_SECRET, 'two');
  } finally {
    await hub.close();
  }

  // A wrong key, and no key at all: clear start-up errors, nothing listens.
  await assert.rejects(start(dbFile, otherKey), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'RSN_HUB_SECRET_KEY');
    assert.match(e.message, /wrong secretKeyFile/);
    return true;
  });
  await assert.rejects(start(dbFile), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'RSN_HUB_SECRET_KEY');
    assert.match(e.message, /no secret key file is configured/);
    return true;
  });
  const cli = await runHubCli([
    'serve',
    '--db',
    dbFile,
    '--port',
    '0',
    '--secret-key-file',
    otherKey,
  ]);
  assert.notEqual(cli.code, 0);
  assert.ok(
    cli.lines.some((l) => /wrong secretKeyFile/.test(l)),
    cli.lines.join('\n'),
  );

  // A key file others may read is refused too.
  const { chmodSync } = await import('node:fs');
  chmodSync(keyFile, 0o644);
  await assert.rejects(start(dbFile, keyFile), /readable by group or others/);
  chmodSync(keyFile, 0o600);
  hub = await start(dbFile, keyFile);
  await hub.close();
});
