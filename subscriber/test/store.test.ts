import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { createResourceStateStore, openSqliteStore } from '../src/store/index.js';
import { tempStore } from './store-helpers.js';

test('migrations apply on a fresh file; WAL is on, commits use synchronous=NORMAL (the WAL is fsync-ed apart)', async (t) => {
  const { store } = await tempStore(t);
  assert.equal(store.sqlite.pragma('journal_mode', { simple: true }), 'wal');
  assert.equal(store.sqlite.pragma('synchronous', { simple: true }), 1);
  const tables = (
    store.sqlite.prepare("SELECT name FROM sqlite_master WHERE type='table'").all() as {
      name: string;
    }[]
  ).map((r) => r.name);
  for (const name of [
    'sources',
    'subscriptions',
    'inbox',
    'position',
    'resources',
    'events',
    'catchups',
  ])
    assert.ok(tables.includes(name), name);
});

test('a reopened store keeps its data and does not re-run migrations', async (t) => {
  const { store, file } = await tempStore(t);
  const src = await store.ensureSource('a', 'http://x/');
  await store.close();
  const again = openSqliteStore({ file });
  t.after(() => again.close().catch(() => undefined));
  assert.equal((await again.getSource('a'))?.id, src.id);
});

test('promise 2: an inbox row is committed (visible to another connection) when insertInbox resolves', async (t) => {
  const { store, file } = await tempStore(t);
  const src = await store.ensureSource('a', 'http://x/');
  // Opaque bodies (the store keeps what was received, unparsed): no document needed.
  const bodies = Array.from({ length: 20 }, (_, i) => Buffer.from(`<urlset>${i}</urlset>`));
  const ids = await Promise.all(
    bodies.map((body) =>
      store.insertInbox({ sourceId: src.id, receivedAt: 1, body, signature: 'unsigned' }),
    ),
  );
  const other = new Database(file, { readonly: true });
  t.after(() => other.close());
  const rows = other.prepare('SELECT id, body, state FROM inbox ORDER BY id').all() as {
    id: number;
    body: Buffer;
    state: string;
  }[];
  assert.deepEqual(
    rows.map((r) => r.id),
    ids,
  );
  assert.deepEqual(
    rows.map((r) => r.body.toString()),
    bodies.map((b) => b.toString()),
  );
  assert.ok(rows.every((r) => r.state === 'new'));
});

test('promise 2: insertInbox reports the commit (row readable) before it resolves with the same id, after the WAL sync', async (t) => {
  const { store, file } = await tempStore(t);
  const src = await store.ensureSource('a', 'http://x/');
  const other = new Database(file, { readonly: true });
  t.after(() => other.close());
  const seen: { id: number; visible: boolean; resolved: boolean }[] = [];
  let resolved = false;
  const body = Buffer.from('<urlset/>');
  const id = await store
    .insertInbox({ sourceId: src.id, receivedAt: 1, body, signature: 'ok' }, (committed) => {
      const row = other.prepare('SELECT id FROM inbox WHERE id = ?').get(committed);
      seen.push({ id: committed, visible: row !== undefined, resolved });
    })
    .finally(() => {
      resolved = true;
    });
  assert.deepEqual(seen, [{ id, visible: true, resolved: false }]);
});

test('closing the store right after durable writes lets their syncs finish: every promise resolves', async (t) => {
  const { store, file } = await tempStore(t);
  const src = await store.ensureSource('a', 'http://x/');
  const writes = Array.from({ length: 10 }, (_, i) =>
    store.insertInbox({
      sourceId: src.id,
      receivedAt: i,
      body: Buffer.from(String(i)),
      signature: 'ok',
    }),
  );
  await Promise.resolve();
  const closed = store.close();
  const ids = await Promise.all(writes);
  await closed;
  const again = new Database(file, { readonly: true });
  t.after(() => again.close());
  const rows = again.prepare('SELECT id FROM inbox ORDER BY id').all() as { id: number }[];
  assert.deepEqual(
    rows.map((r) => r.id),
    ids,
  );
});

test('open inbox rows come back oldest first; finished ones do not', async (t) => {
  const { store } = await tempStore(t);
  const src = await store.ensureSource('a', 'http://x/');
  const ids = [];
  for (let i = 0; i < 4; i++)
    ids.push(
      await store.insertInbox({
        sourceId: src.id,
        receivedAt: i,
        body: Buffer.from(String(i)),
        signature: 'ok',
      }),
    );
  await store.setInboxState([ids[1]!], 'applied');
  await store.updateInbox(ids[2]!, {
    state: 'buffered',
    from: '2020-01-01T00:00:00Z',
    until: '2020-01-01T00:00:05Z',
  });
  const open = await store.listOpenInbox(src.id);
  assert.deepEqual(
    open.map((r) => r.id),
    [ids[0], ids[2], ids[3]],
  );
  assert.equal(open[1]!.until, '2020-01-01T00:00:05Z');
  assert.equal((await store.counters(src.id)).openInbox, 3);
});

test('status counters: the newest until is that of the newest row carrying one, whatever its state', async (t) => {
  const { store } = await tempStore(t);
  const src = await store.ensureSource('a', 'http://x/');
  const other = await store.ensureSource('b', 'http://y/');
  const insert = (sourceId: number) =>
    store.insertInbox({ sourceId, receivedAt: 0, body: Buffer.from('x'), signature: 'ok' });
  assert.equal((await store.counters(src.id)).newestUntil, undefined);
  const rows = [];
  for (let i = 0; i < 6; i++) rows.push(await insert(src.id));
  // Finished in another order than received; a newer row of another Source; newer rows without one.
  await store.updateInbox(rows[3]!, { state: 'applied', from: 'a3', until: 'u3' });
  await store.updateInbox(rows[1]!, { state: 'superseded', from: 'a1', until: 'u1' });
  await store.updateInbox(rows[4]!, { state: 'buffered', from: 'a4', until: 'u4' });
  await store.updateInbox(rows[0]!, { state: 'applied', from: 'a0', until: 'u0' });
  await store.updateInbox(rows[5]!, { state: 'invalid', error: 'bad' });
  const theirs = await insert(other.id);
  await store.updateInbox(theirs, { state: 'applied', from: 'b', until: 'ub' });
  assert.equal((await store.counters(src.id)).newestUntil, 'u4');
  await store.updateInbox(rows[4]!, { state: 'superseded' });
  assert.equal((await store.counters(src.id)).newestUntil, 'u4', 'a state change keeps the until');
  await store.updateInbox(rows[5]!, { state: 'applied', from: 'a5', until: 'u5' });
  assert.equal((await store.counters(src.id)).newestUntil, 'u5');
  assert.equal((await store.counters(other.id)).newestUntil, 'ub');
});

test('subscriptions: insert, find by token, update', async (t) => {
  const { store } = await tempStore(t);
  const src = await store.ensureSource('a', 'http://x/');
  const rec = await store.insertSubscription({
    sourceId: src.id,
    hub: 'http://h/',
    topic: 'http://t/',
    callbackToken: 'tok',
    callbackUrl: 'http://cb/callback/tok',
    secret: 'sec',
    state: 'pending-subscribe',
    requestedAt: 10,
    attempt: 1,
    requestedLeaseSeconds: 300,
  });
  assert.equal((await store.findSubscriptionByToken('tok'))?.id, rec.id);
  assert.equal(await store.findSubscriptionByToken('nope'), undefined);
  const up = await store.updateSubscription(rec.id, {
    state: 'active',
    leaseExpiresAt: 99,
    updatedAt: 11,
  });
  assert.equal(up?.state, 'active');
  const found = await store.findSubscriptionByToken('tok');
  assert.equal(found?.leaseExpiresAt, 99);
  assert.equal(found?.secret, 'sec');
  assert.equal(found?.verifiedAt, undefined);
});

test('position round trip keeps the lexical datetime', async (t) => {
  const { store } = await tempStore(t);
  const src = await store.ensureSource('a', 'http://x/');
  assert.equal(await store.getPosition(src.id), undefined);
  await store.savePosition(src.id, { syncedUntil: '2021-05-01T10:00:00.123400Z', gapOpenedAt: 5 });
  await store.savePosition(src.id, {
    syncedUntil: '2021-05-01T10:00:01.000001Z',
    gapOpenedAt: undefined,
  });
  const pos = await store.getPosition(src.id);
  assert.equal(pos?.syncedUntil, '2021-05-01T10:00:01.000001Z');
  assert.equal(pos?.gapOpenedAt, undefined);
});

test('the mirror ResourceStateStore reads back what it wrote; null deletes', async (t) => {
  const { store } = await tempStore(t);
  const src = await store.ensureSource('a', 'http://x/');
  const rs = createResourceStateStore(store, src.id);
  assert.equal(await rs.get('http://x/r'), undefined);
  await rs.set('http://x/r', {
    path: '/m/x/r',
    sha256: 'ab',
    length: 2,
    lastChangeKey: '2020-01-01T00:00:00.',
  });
  assert.deepEqual(await rs.get('http://x/r'), {
    sha256: 'ab',
    length: 2,
    lastChangeKey: '2020-01-01T00:00:00.',
  });
  await rs.set('http://x/r', null);
  assert.equal(await rs.get('http://x/r'), undefined);
});

test('group commit isolates a failing write from its neighbours', async (t) => {
  const { store } = await tempStore(t);
  const src = await store.ensureSource('a', 'http://x/');
  const good = store.insertInbox({
    sourceId: src.id,
    receivedAt: 1,
    body: Buffer.from('a'),
    signature: 'ok',
  });
  const bad = store.insertInbox({
    sourceId: 9999,
    receivedAt: 1,
    body: Buffer.from('b'),
    signature: 'ok',
  }); // FK violation
  const good2 = store.insertInbox({
    sourceId: src.id,
    receivedAt: 1,
    body: Buffer.from('c'),
    signature: 'ok',
  });
  await assert.rejects(bad);
  assert.equal(typeof (await good), 'number');
  assert.equal(typeof (await good2), 'number');
  assert.equal((await store.listOpenInbox(src.id)).length, 2);
});

test('migration 0001 starts the totals from the rows a database already had', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'rsn-store-migrate-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'subscriber.db');
  // A database as the first release left it: only migration 0000, with history rows.
  const old = new Database(file);
  const init = readFileSync(
    fileURLToPath(new URL('../drizzle/0000_init.sql', import.meta.url)),
    'utf8',
  );
  for (const stmt of init.split('--> statement-breakpoint')) if (stmt.trim()) old.exec(stmt);
  old.exec(
    `CREATE TABLE "__drizzle_migrations" (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)`,
  );
  const journal = JSON.parse(
    readFileSync(fileURLToPath(new URL('../drizzle/meta/_journal.json', import.meta.url)), 'utf8'),
  ) as { entries: { tag: string; when: number }[] };
  old
    .prepare('INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES (?, ?)')
    .run(createHash('sha256').update(init).digest('hex'), journal.entries[0]!.when);
  old.exec(`INSERT INTO sources (id, name, url) VALUES (1, 'a', 'http://x/')`);
  old.exec(
    `INSERT INTO events (source_id, at, uri, change, outcome) VALUES (1, 1, 'u1', 'created', 'written'), (1, 1, 'u2', 'deleted', 'deleted'), (1, 1, 'u3', 'updated', 'failed')`,
  );
  old.exec(
    `INSERT INTO catchups (source_id, reason, state, started_at) VALUES (1, 'gap', 'done', 1)`,
  );
  old.close();

  const store = openSqliteStore({ file });
  t.after(() => store.close().catch(() => undefined));
  const c = await store.counters(1);
  assert.deepEqual([c.appliedEvents, c.failedEvents, c.catchUps], [2, 1, 1]);
});

test('prepared statements after a rolled-back batch: each write counts once, the statements go on working', async (t) => {
  const { store } = await tempStore(t);
  const src = await store.ensureSource('a', 'http://x/');
  const id = await store.insertInbox({
    sourceId: src.id,
    receivedAt: 1,
    body: Buffer.from('n'),
    signature: 'ok',
  });
  const event = (uri: string) => ({ at: 1, uri, change: 'deleted', outcome: 'deleted' as const });
  // One turn, one transaction: the events of an unknown source break the foreign key, the whole
  // batch rolls back and is re-run one write at a time (group commit).
  const writes = [
    store.addEvents(src.id, [event('http://x/1'), event('http://x/2')]),
    store.addEvents(src.id + 1, [event('http://x/bad')]),
    store.updateInbox(id, { state: 'applied', from: 'f', until: 'u' }),
    store.savePosition(src.id, { syncedUntil: 'u', lastAppliedAt: 1 }),
  ];
  const settled = await Promise.allSettled(writes);
  assert.deepEqual(
    settled.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
  );
  assert.equal((await store.counters(src.id)).appliedEvents, 2, 'not doubled by the re-run');
  assert.deepEqual(
    (await store.recentEvents(src.id, 10)).map((e) => e.uri),
    ['http://x/2', 'http://x/1'],
  );
  // The same statements again, each in a transaction of its own.
  await store.addEvents(src.id, [event('http://x/3')]);
  await store.updateInbox(id, { state: 'superseded', from: 'f2', until: 'u2' });
  await store.savePosition(src.id, { syncedUntil: 'u2', lastAppliedAt: 2 });
  assert.equal((await store.counters(src.id)).appliedEvents, 3);
  assert.deepEqual(
    [(await store.getInbox(id))?.state, (await store.getInbox(id))?.until],
    ['superseded', 'u2'],
  );
  assert.equal((await store.getPosition(src.id))?.syncedUntil, 'u2');
});
