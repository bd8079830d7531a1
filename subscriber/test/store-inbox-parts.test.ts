// A delivery body larger than one part (512 KiB) is stored in inbox_parts, a statement each, before
// its inbox row (service-kit's SqliteBodyParts): neither the row's insert nor the updates of its
// state write the body in one statement. The body reads back byte for byte, the parts go with
// their row when it is pruned, and parts no row names (a process that died between staging and
// the row's commit) are swept once they are older than the grace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { PART_BYTES, STAGING_GRACE_MS } from '@rsnotify/service-kit';
import type { SqliteSubscriberStore } from '../src/store/index.js';
import { tempStore } from './store-helpers.js';

const partsOf = (store: SqliteSubscriberStore, payloadId: number): number =>
  store.sqlite
    .prepare('SELECT count(*) FROM inbox_parts WHERE payload_id = ?')
    .pluck()
    .get(payloadId) as number;

const rowOf = (store: SqliteSubscriberStore, id: number) =>
  store.sqlite
    .prepare('SELECT length(body) AS inline, payload_id AS payloadId FROM inbox WHERE id = ?')
    .get(id) as { inline: number; payloadId: number | null };

test('WS-11: a body over one part is stored in parts before its row and reads back byte for byte', async (t) => {
  const { store } = await tempStore(t);
  const src = await store.ensureSource('a', 'http://x/');
  const body = randomBytes(2 * PART_BYTES + 1234);
  const small = Buffer.from('<urlset/>');
  const id = await store.insertInbox({ sourceId: src.id, receivedAt: 1, body, signature: 'ok' });
  const smallId = await store.insertInbox({
    sourceId: src.id,
    receivedAt: 2,
    body: small,
    signature: 'ok',
  });

  const row = rowOf(store, id);
  assert.equal(row.inline, 0, 'the row itself carries no body');
  assert.notEqual(row.payloadId, null);
  assert.equal(partsOf(store, row.payloadId!), 3, 'two full parts and the rest');
  assert.deepEqual(rowOf(store, smallId), { inline: small.length, payloadId: null }, 'inline');

  assert.ok((await store.getInbox(id))!.body.equals(body), 'getInbox reads the parts back');
  const open = await store.listOpenInbox(src.id);
  assert.deepEqual(
    open.map((r) => r.body.length),
    [body.length, small.length],
  );
  assert.ok(open[0]!.body.equals(body), 'listOpenInbox reads the parts back');

  await store.updateInbox(id, { state: 'buffered', from: '2030-01-01T00:00:00Z' });
  assert.ok((await store.getInbox(id))!.body.equals(body), 'a state update keeps the body');
});

test('pruning a finished row removes its parts; stray parts go once older than the grace', async (t) => {
  const { store } = await tempStore(t);
  const src = await store.ensureSource('a', 'http://x/');
  const now = 10 * STAGING_GRACE_MS;
  const id = await store.insertInbox({
    sourceId: src.id,
    receivedAt: 1,
    body: randomBytes(PART_BYTES + 1),
    signature: 'ok',
  });
  const kept = await store.insertInbox({
    sourceId: src.id,
    receivedAt: 2,
    body: randomBytes(PART_BYTES + 1),
    signature: 'ok',
  });
  const { payloadId } = rowOf(store, id);
  const keptPayload = rowOf(store, kept).payloadId!;
  const stray = store.sqlite.prepare(
    'INSERT INTO inbox_parts (payload_id, part, bytes, created_at) VALUES (?, 0, ?, ?)',
  );
  stray.run(7, Buffer.from('old stray'), now - STAGING_GRACE_MS - 1);
  stray.run(8, Buffer.from('staging now'), now - 1);
  await store.setInboxState([id], 'applied');

  assert.equal(
    await store.pruneInbox(src.id, now),
    1,
    'the applied row is pruned, the open one kept',
  );
  assert.equal(partsOf(store, payloadId!), 0, "the pruned row's parts are gone");
  assert.equal(partsOf(store, keptPayload), 2, "the open row's parts stay");
  assert.equal(partsOf(store, 7), 0, 'a stray part older than the grace is swept');
  assert.equal(partsOf(store, 8), 1, 'a part that may be staging now stays');
  assert.equal((await store.getInbox(kept))!.body.length, PART_BYTES + 1);
});
