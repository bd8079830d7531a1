// The subscriber store's WAL checkpoints run on a worker thread (service-kit's checkpointer), on a
// real SQLite file: the connection that commits inbox rows never checkpoints by itself while the
// worker runs, the worker copies the committed rows into the database file, close() ends the worker
// before the store's own connection (which, being the last, removes the WAL), and a read-only store
// (the `status` command) starts none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { tempDir, waitFor } from '@rsnotify/service-kit/testing';
import { openSqliteStore } from '../src/store/index.js';

async function tempFile(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await tempDir('rsn-store-ckpt-');
  t.after(() => dir.remove());
  return join(dir.dir, 'subscriber.db');
}

test('inbox rows reach the database file through the checkpoint worker; the committing connection checkpoints nothing', async (t) => {
  const file = await tempFile(t);
  const store = openSqliteStore({ file });
  t.after(() => store.close());
  assert.equal(store.sqlite.pragma('wal_autocheckpoint', { simple: true }), 0);
  const src = await store.ensureSource('a', 'http://x/');
  const before = statSync(file).size;
  // 2 MiB of durable inbox rows, about 520 pages: under SQLite's 1,000-page automatic checkpoint
  // even were it on, so only another connection's checkpoint can copy them into the file.
  const bodies = Array.from({ length: 32 }, () => randomBytes(64 * 1024));
  const ids = await Promise.all(
    bodies.map((body) =>
      store.insertInbox({ sourceId: src.id, receivedAt: 1, body, signature: 'unsigned' }),
    ),
  );
  await waitFor(() => statSync(file).size >= before + 2 * 1024 * 1024, {
    what: 'the inbox rows checkpointed into subscriber.db',
  });
  assert.equal(store.sqlite.pragma('wal_autocheckpoint', { simple: true }), 0);
  // The rows are whole, read through the store's connection after the checkpoint.
  for (const [i, id] of ids.entries())
    assert.deepEqual((await store.getInbox(id))?.body, bodies[i], `inbox row ${id}`);
});

test('close() stops the checkpoint worker before the store connection closes: the WAL is gone and every row is in the file', async (t) => {
  const file = await tempFile(t);
  const store = openSqliteStore({ file });
  const src = await store.ensureSource('a', 'http://x/');
  const before = statSync(file).size;
  for (let i = 0; i < 16; i++)
    await store.insertInbox({
      sourceId: src.id,
      receivedAt: 1,
      body: randomBytes(64 * 1024),
      signature: 'unsigned',
    });
  // The worker has its connection open once it has checkpointed.
  await waitFor(() => statSync(file).size > before, { what: 'a checkpoint by the worker' });
  await store.close();
  // Were the worker's connection still open, the store's would not be the last one to close, and
  // SQLite would leave the WAL in place.
  assert.equal(existsSync(`${file}-wal`), false, 'the WAL is removed by the last connection');
  const reader = new Database(file, { readonly: true });
  t.after(() => Promise.resolve(reader.close()));
  assert.equal(reader.prepare('SELECT count(*) FROM inbox').pluck().get(), 16);
});

test('a read-only store (the status command) starts no checkpoint worker', async (t) => {
  const file = await tempFile(t);
  const writer = openSqliteStore({ file });
  t.after(() => writer.close());
  await writer.ensureSource('a', 'http://x/');
  const reader = openSqliteStore({ file, readonly: true });
  t.after(() => reader.close());
  // SQLite's default: this connection would checkpoint by itself were it to commit.
  assert.equal(reader.sqlite.pragma('wal_autocheckpoint', { simple: true }), 1000);
  assert.equal((await reader.listSources()).length, 1);
});
