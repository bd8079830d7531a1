// The SQLite engine against the store contract, on a real database file (migrations applied at open).
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { openSqliteRepository } from '../src/store/index.js';
import { PRUNE_CANDIDATES_SQL, PRUNE_ROWS_PER_TURN } from '../src/store/sqlite/upkeep.js';
import { PART_BYTES, STAGING_GRACE_MS } from '@rsnotify/service-kit';
import { runRepositoryContract } from './repository-contract.js';

const root = mkdtempSync(join(tmpdir(), 'rsnotify-hub-store-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

runRepositoryContract('sqlite', async () => {
  const file = join(root, `db-${++n}`, 'hub.db');
  return { repo: openSqliteRepository(file), reopen: async () => openSqliteRepository(file) };
});

test('sqlite: WAL mode, migrations recorded once, reopening an existing database is a no-op', async () => {
  const file = join(root, 'wal', 'hub.db');
  await openSqliteRepository(file).close();
  await openSqliteRepository(file).close();
  const db = new Database(file, { readonly: true });
  try {
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    const journal = JSON.parse(
      readFileSync(
        fileURLToPath(new URL('../drizzle/meta/_journal.json', import.meta.url)),
        'utf8',
      ),
    ) as { entries: unknown[] };
    assert.equal(
      (db.prepare('SELECT COUNT(*) AS n FROM __drizzle_migrations').get() as { n: number }).n,
      journal.entries.length,
    );
  } finally {
    db.close();
  }
});

test('sqlite: an unopenable database file is a typed error', () => {
  // A regular file where the database directory should be (not a /proc path: Node 20's recursive
  // mkdir never returns there).
  const notADirectory = join(root, 'plain-file');
  writeFileSync(notADirectory, 'x');
  assert.throws(() => openSqliteRepository(join(notADirectory, 'hub.db')), {
    code: 'RSN_STORE_OPEN_FAILED',
    message: /^cannot open hub database .*ENOTDIR/,
  });
  // `serve --db /proc/nope/hub.db`: fails at once, with the errno.
  assert.throws(() => openSqliteRepository('/proc/nope/hub.db'), {
    code: 'RSN_STORE_OPEN_FAILED',
    message: /^cannot open hub database \/proc\/nope\/hub\.db: E[A-Z]+/,
  });
  // A directory where the database file should be.
  assert.throws(() => openSqliteRepository(root), {
    code: 'RSN_STORE_OPEN_FAILED',
    message: /^cannot open hub database .*EISDIR/,
  });
});

const publish = (topicUrl: string, tag: string, linkHeader = `<${topicUrl}>; rel="self"`) => ({
  topicUrl,
  receivedAt: 100,
  contentType: 'application/xml',
  linkHeader,
  body: Buffer.from(tag),
});

test('sqlite: M-3: publishes through another connection to the same file are continued, never numbered again', async () => {
  // Two hub processes on one database file (or the CLI beside a hub): each connection remembers
  // where its topics end, and must notice the other's commits.
  const file = join(root, 'two-connections', 'hub.db');
  const a = openSqliteRepository(file);
  const b = openSqliteRepository(file);
  try {
    const seqs: number[] = [];
    for (const r of await Promise.all(
      [a, a].map((repo, i) => repo.appendNotification(publish('http://t/x', `a${i}`))),
    ))
      seqs.push(r.seq);
    seqs.push((await b.appendNotification(publish('http://t/x', 'b0'))).seq);
    for (const r of await Promise.all(
      ['a2', 'a3'].map((tag) => a.appendNotification(publish('http://t/x', tag))),
    ))
      seqs.push(r.seq);
    seqs.push((await b.appendNotification(publish('http://t/x', 'b1'))).seq);
    assert.deepEqual(seqs, [1, 2, 3, 4, 5, 6]);
    const topicId = (await a.listTopics())[0]!.id;
    const bodies: string[] = [];
    for (let seq = 1; seq <= 6; seq++)
      bodies.push((await b.getNotification(topicId, seq))!.body.toString());
    assert.deepEqual(bodies, ['a0', 'a1', 'b0', 'a2', 'a3', 'b1']);
    assert.deepEqual(
      (await b.listTopics()).map((t) => t.lastSeq),
      [6],
    );
  } finally {
    await a.close();
    await b.close();
  }
});

test('sqlite: M-3: a group commit that fails hands its seqs out again: no gap and none twice', async () => {
  const file = join(root, 'failed-batch', 'hub.db');
  const repo = openSqliteRepository(file);
  const writer = new Database(file);
  try {
    assert.equal((await repo.appendNotification(publish('http://t/f', 'first'))).seq, 1);
    // One row of the next batch is refused by the database: the batch's transaction rolls back and
    // the group commit writes its rows one by one.
    writer.exec(
      "CREATE TRIGGER refuse_one BEFORE INSERT ON notifications WHEN NEW.link_header = '<refused>' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END",
    );
    const batch = await Promise.allSettled([
      repo.appendNotification(publish('http://t/f', 'second')),
      repo.appendNotification(publish('http://t/f', 'refused', '<refused>')),
      repo.appendNotification(publish('http://t/f', 'third')),
    ]);
    assert.deepEqual(
      batch.map((r) => (r.status === 'fulfilled' ? r.value.seq : 'refused')),
      [2, 'refused', 3],
    );
    assert.equal((await repo.appendNotification(publish('http://t/f', 'fourth'))).seq, 4);
    const topicId = (await repo.listTopics())[0]!.id;
    assert.equal((await repo.getNotification(topicId, 3))?.body.toString(), 'third');
    assert.deepEqual(
      (await repo.listTopics()).map((t) => t.lastSeq),
      [4],
    );
  } finally {
    writer.close();
    await repo.close();
  }
});

test('sqlite: promise 1: a large body is staged in parts that count only once its row commits; pruning and the sweep remove parts no row names', async () => {
  const file = join(root, 'parts', 'hub.db');
  const repo = openSqliteRepository(file);
  const peek = new Database(file, { readonly: true });
  const parts = (): number =>
    (peek.prepare('SELECT COUNT(*) AS n FROM notification_parts').get() as { n: number }).n;
  try {
    const big = Buffer.alloc(PART_BYTES * 3 + 1, 0x61);
    const { topicId, seq } = await repo.appendNotification({
      topicUrl: 'http://t/parts',
      receivedAt: 100,
      contentType: 'application/xml',
      linkHeader: '<http://t/parts>; rel="self"',
      body: big,
    });
    assert.equal(parts(), 4, 'three full parts and one byte');
    const row = peek
      .prepare('SELECT length(body) AS inline, payload_id AS payloadId FROM notifications')
      .get() as { inline: number; payloadId: number | null };
    assert.equal(row.inline, 0, 'the notification row holds no copy of the body');
    assert.notEqual(row.payloadId, null);
    assert.ok((await repo.getNotification(topicId, seq))?.body.equals(big));

    // Parts a crashed publish staged before its row committed: written by another connection, as
    // the hub process that died would have left them.
    const writer = new Database(file);
    const stray = writer.prepare(
      'INSERT INTO notification_parts (payload_id, part, bytes, created_at) VALUES (?, 0, ?, ?)',
    );
    stray.run(7, Buffer.from('old stray'), 1_000 - STAGING_GRACE_MS - 1);
    stray.run(8, Buffer.from('a publish still staging'), 500);
    writer.close();
    assert.equal(parts(), 6);

    assert.equal(await repo.pruneNotifications(1_000), 1);
    const left = peek.prepare('SELECT payload_id AS id FROM notification_parts').all() as {
      id: number;
    }[];
    assert.deepEqual(
      left.map((r) => r.id),
      [8],
      "the pruned notification's parts and the old stray go; recent staging stays",
    );
  } finally {
    peek.close();
    await repo.close();
  }
});

test('sqlite: upgrading a database of migration 0004 keeps every notification, and the table loses AUTOINCREMENT', async () => {
  // A database as the previous release left it: migrations 0000-0004 only, notifications in it.
  const drizzleDir = fileURLToPath(new URL('../drizzle', import.meta.url));
  const older = join(root, 'older-migrations');
  mkdirSync(join(older, 'meta'), { recursive: true });
  const journal = JSON.parse(readFileSync(join(drizzleDir, 'meta', '_journal.json'), 'utf8')) as {
    entries: { idx: number; tag: string }[];
  };
  const kept = journal.entries.filter((e) => e.idx <= 4);
  writeFileSync(
    join(older, 'meta', '_journal.json'),
    JSON.stringify({ ...journal, entries: kept }),
  );
  for (const e of kept) copyFileSync(join(drizzleDir, `${e.tag}.sql`), join(older, `${e.tag}.sql`));
  const file = join(root, 'upgrade', 'hub.db');
  mkdirSync(join(root, 'upgrade'));
  const raw = new Database(file);
  migrate(drizzle(raw), { migrationsFolder: older });
  raw
    .prepare("INSERT INTO topics (url, last_seq, created_at) VALUES ('http://s.test/t', 2, 1)")
    .run();
  const add = raw.prepare(
    "INSERT INTO notifications (topic_id, seq, received_at, content_type, link_header, body) VALUES (1, ?, 1, 'application/xml', '<l>', ?)",
  );
  add.run(1, Buffer.from('first'));
  add.run(2, Buffer.from('second'));
  assert.match(sqlOf(raw, 'notifications'), /AUTOINCREMENT/);
  raw.close();

  const repo = openSqliteRepository(file);
  try {
    assert.equal((await repo.getNotification(1, 1))?.body.toString(), 'first');
    assert.equal((await repo.getNotification(1, 2))?.body.toString(), 'second');
    const next = await repo.appendNotification({
      topicUrl: 'http://s.test/t',
      contentType: 'application/xml',
      linkHeader: '<l>',
      body: Buffer.from('third'),
      receivedAt: 2,
    });
    assert.deepEqual(next, { topicId: 1, seq: 3 });
    assert.equal((await repo.getNotification(1, 3))?.body.toString(), 'third');
  } finally {
    await repo.close();
  }
  const after = new Database(file, { readonly: true });
  try {
    assert.doesNotMatch(sqlOf(after, 'notifications'), /AUTOINCREMENT/);
    assert.match(sqlOf(after, 'notifications_topic_seq_unique'), /UNIQUE INDEX/);
    // DROP TABLE took the old table's sqlite_sequence row with it.
    const seqRow = after.prepare("SELECT name FROM sqlite_sequence WHERE name = 'notifications'");
    assert.equal(seqRow.get(), undefined);
  } finally {
    after.close();
  }
});

function sqlOf(db: Database.Database, name: string): string {
  const row = db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').get(name) as
    { sql: string } | undefined;
  return row?.sql ?? '';
}

test('sqlite: M-5: pruning walks the old rows by age a batch per turn; rows a cursor still holds stay, the rest go, and the topic ends are kept', async () => {
  const file = join(root, 'prune-batches', 'hub.db');
  const repo = openSqliteRepository(file);
  const peek = new Database(file, { readonly: true });
  try {
    const note = (topicUrl: string, receivedAt: number) => ({
      topicUrl,
      receivedAt,
      contentType: 'application/xml',
      linkHeader: `<${topicUrl}>; rel="self"`,
      body: Buffer.from('x'),
    });
    const old = 3 * PRUNE_ROWS_PER_TURN + 7;
    const free = Math.ceil(old / 2); // even i
    const held = old - free; // odd i
    // Two topics, their old rows interleaved in age: one followed by a subscription that stays
    // 10 notifications behind (M-5 keeps those), one nobody subscribes to.
    const sub = await repo.activateSubscription({
      topicUrl: 'http://t/held',
      topicAsGiven: 'http://t/held',
      callback: 'http://cb/1',
      secret: undefined,
      algorithm: 'sha256',
      leaseSeconds: 60,
      leaseExpiresAt: 1e15,
      hasLapsed: () => false,
      now: 50,
    });
    assert.equal(sub.deliveredSeq, 0);
    await Promise.all(
      Array.from({ length: old }, (_, i) =>
        repo.appendNotification(note(i % 2 ? 'http://t/held' : 'http://t/free', 100 + i)),
      ),
    );
    await repo.saveCursors(
      [
        {
          subscriptionId: sub.id,
          deliveredSeq: held - 10,
          attempts: 0,
          nextAttemptAt: 0,
          firstFailedAt: undefined,
          lastStatus: 200,
          lastError: undefined,
        },
      ],
      50_000,
    );
    await repo.appendNotification(note('http://t/other', 60_000)); // within the window
    // One walk of the index in order: no rows gathered and sorted per batch.
    const plan = (
      peek.prepare(`EXPLAIN QUERY PLAN ${PRUNE_CANDIDATES_SQL}`).all(0, 0, 1, 1) as {
        detail: string;
      }[]
    ).map((r) => r.detail);
    assert.ok(
      plan.some((d) => d.includes('notifications_received_idx')) &&
        !plan.some((d) => d.includes('TEMP B-TREE')),
      plan.join('; '),
    );

    const rows = peek.prepare('SELECT COUNT(*) AS n FROM notifications');
    const seen: number[] = [];
    let counting = true;
    const look = () => {
      if (!counting) return;
      seen.push((rows.get() as { n: number }).n);
      setImmediate(look);
    };
    look();
    const pruned = await repo.pruneNotifications(50_000);
    seen.push((rows.get() as { n: number }).n);
    counting = false;
    assert.equal(pruned, old - 10, 'every old row but the 10 the cursor has not passed');
    const drops = seen.slice(1).map((n, i) => seen[i]! - n);
    assert.ok(
      Math.max(...drops) <= PRUNE_ROWS_PER_TURN,
      `rows gone between turns: ${drops.filter((d) => d > 0).join(', ')}`,
    );
    assert.deepEqual(
      (
        peek
          .prepare(
            'SELECT t.url, n.seq FROM notifications n JOIN topics t ON t.id = n.topic_id ORDER BY t.url, n.seq',
          )
          .all() as { url: string; seq: number }[]
      ).map((r) => `${r.url} ${r.seq}`),
      [
        ...Array.from({ length: 10 }, (_, i) => `http://t/held ${held - 9 + i}`),
        'http://t/other 1',
      ],
    );
    // Seqs go on from each topic's end, also where every row of the topic went (M-3).
    const next = await repo.appendNotification(note('http://t/free', 70_000));
    assert.equal(next.seq, free + 1);
  } finally {
    peek.close();
    await repo.close();
  }
});
