// Trailing writes (WriteOptions.trailing): the runner's records of an applied notification wait
// up to a window for company, so a burst commits them every few milliseconds instead of once per
// notification. Observed from a second connection on the real SQLite file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteStore } from '../src/store/index.js';

async function tempStore(
  t: { after: (fn: () => Promise<void>) => void },
  trailingCommitMs: number,
) {
  const dir = await mkdtemp(join(tmpdir(), 'rsn-trailing-'));
  const file = join(dir, 'subscriber.db');
  const store = openSqliteStore({ file, trailingCommitMs });
  const reader = new Database(file, { readonly: true });
  t.after(async () => {
    reader.close();
    await store.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });
  const source = await store.ensureSource('a', 'http://x/');
  const inboxId = await store.insertInbox({
    sourceId: source.id,
    receivedAt: 1,
    body: Buffer.from('<urlset/>'),
    signature: 'unsigned',
  });
  const seen = () => ({
    state: (
      reader.prepare('SELECT state FROM inbox WHERE id = ?').get(inboxId) as { state: string }
    ).state,
    positions: (reader.prepare('SELECT count(*) AS n FROM position').get() as { n: number }).n,
    events: (reader.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n,
  });
  return { store, sourceId: source.id, inboxId, seen };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('trailing writes wait for company: the next write that is not trailing commits them with it, in order', async (t) => {
  // A window no test run reaches: only the plain write can have committed them.
  const { store, sourceId, inboxId, seen } = await tempStore(t, 3_600_000);
  let committed = 0;
  const trailing = [
    store.addEvents(
      sourceId,
      [{ at: 2, uri: 'http://x/a', change: 'deleted', outcome: 'deleted' }],
      {
        trailing: true,
      },
    ),
    store.updateInbox(inboxId, { state: 'applied' }, { trailing: true }),
    store.savePosition(sourceId, { syncedUntil: '2026-01-01T00:00:00Z' }, { trailing: true }),
  ].map((p) => p.then(() => committed++));
  for (let i = 0; i < 5; i++) await turn();
  assert.equal(committed, 0, 'no trailing write is answered before its commit');
  assert.deepEqual(seen(), { state: 'new', positions: 0, events: 0 });

  // A later position write that is not trailing: it commits the queued ones first, then itself.
  await store.savePosition(sourceId, { syncedUntil: '2026-01-02T00:00:00Z' });
  await Promise.all(trailing);
  assert.equal(committed, 3);
  assert.deepEqual(seen(), { state: 'applied', positions: 1, events: 1 });
  const position = await store.getPosition(sourceId);
  assert.equal(position?.syncedUntil, '2026-01-02T00:00:00Z', 'submission order kept');
});

test('a trailing write alone commits once its window has passed', async (t) => {
  const { store, inboxId, seen } = await tempStore(t, 5);
  await store.updateInbox(inboxId, { state: 'applied' }, { trailing: true });
  assert.equal(seen().state, 'applied');
});

test('closing the store commits trailing writes still waiting for their window', async (t) => {
  const { store, inboxId, seen } = await tempStore(t, 3_600_000);
  const pending = store.updateInbox(inboxId, { state: 'applied' }, { trailing: true });
  await store.close();
  await pending;
  assert.equal(seen().state, 'applied');
});

test('commitTrailing commits the trailing writes at once (the runner has nothing more to do)', async (t) => {
  const { store, inboxId, seen } = await tempStore(t, 3_600_000);
  const pending = store.updateInbox(inboxId, { state: 'applied' }, { trailing: true });
  await turn();
  assert.equal(seen().state, 'new');
  store.commitTrailing();
  assert.equal(seen().state, 'applied', 'committed before commitTrailing returned');
  await pending;
});
