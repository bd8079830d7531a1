// The PostgreSQL engine against the same store contract as SQLite, on a real server the test run
// starts (scripts/postgres-server.mjs); each case gets a fresh database.
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { testPostgres } from '../../scripts/postgres-server.mjs';
import { openPostgresRepository, type PostgresRepository } from '../src/store/index.js';
import { PART_BYTES } from '@rsnotify/service-kit';
import { appendInOneStatement, appendInTransaction } from '../src/store/postgres/appends.js';
import { decodeEvent, HUB_CHANNEL } from '../src/store/postgres/events.js';
import { runRepositoryContract } from './repository-contract.js';

const server = await testPostgres();
const skip = 'skip' in server ? server.skip : false;

if (!('skip' in server)) {
  runRepositoryContract('postgres', async () => {
    const url = server.newDatabase('contract');
    return { repo: await openPostgresRepository(url), reopen: () => openPostgresRepository(url) };
  });
} else {
  test('postgres: repository contract', { skip }, () => undefined);
}

test(
  'postgres: migrations applied once under the advisory lock when several processes open at once',
  { skip },
  async () => {
    if ('skip' in server) return;
    const url = server.newDatabase('migrate');
    const repos = await Promise.all(
      [1, 2, 3, 4].map(() => openPostgresRepository(url, { listen: false })),
    );
    await Promise.all(repos.map((r) => r.close()));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const r = await client.query<{ n: number }>(
        'SELECT COUNT(*)::int AS n FROM drizzle.__drizzle_migrations',
      );
      // Once per migration in the journal, however many processes raced to apply them.
      const journal = JSON.parse(
        readFileSync(new URL('../drizzle-pg/meta/_journal.json', import.meta.url), 'utf8'),
      ) as { entries: unknown[] };
      assert.equal(r.rows[0]!.n, journal.entries.length);
    } finally {
      await client.end();
    }
  },
);

test(
  'postgres: M-3: concurrent publishers in several processes get gap-free, ordered seqs per topic',
  { skip },
  async () => {
    if ('skip' in server) return;
    const url = server.newDatabase('seq');
    const repos: PostgresRepository[] = await Promise.all(
      [1, 2, 3].map(() => openPostgresRepository(url, { listen: false })),
    );
    const note = (topicUrl: string, tag: string) => ({
      topicUrl,
      receivedAt: 1,
      contentType: 'application/xml',
      linkHeader: '<x>; rel="self"',
      body: Buffer.from(tag),
    });
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        repos[i % 3]!.appendNotification(note(i % 2 ? 'http://t/odd' : 'http://t/even', `n${i}`)),
      ),
    );
    for (const topicId of new Set(results.map((r) => r.topicId))) {
      const seqs = results
        .filter((r) => r.topicId === topicId)
        .map((r) => r.seq)
        .sort((a, b) => a - b);
      assert.deepEqual(
        seqs,
        Array.from({ length: 150 }, (_, i) => i + 1),
        'every seq 1..150 exactly once',
      );
    }
    // Within one process, arrival order is seq order (group commit keeps it).
    const fromFirst = results.filter((_, i) => i % 3 === 0 && i % 2 === 0).map((r) => r.seq);
    assert.deepEqual(
      fromFirst,
      [...fromFirst].sort((a, b) => a - b),
    );
    await Promise.all(repos.map((r) => r.close()));
  },
);

test(
  "postgres: promise 1: a large body is stored in parts in its row's transaction, read back in order, and pruned with its row",
  { skip },
  async () => {
    if ('skip' in server) return;
    const url = server.newDatabase('parts');
    const repo = await openPostgresRepository(url, { listen: false });
    const peek = new pg.Client({ connectionString: url });
    await peek.connect();
    const parts = async (): Promise<number[]> =>
      (
        await peek.query<{ n: number }>(
          'SELECT length(bytes) AS n FROM notification_parts ORDER BY payload_id, part',
        )
      ).rows.map((r) => r.n);
    try {
      // Every byte differs from its neighbours', so parts read out of order would not compare equal.
      const big = Buffer.from(Array.from({ length: PART_BYTES * 3 + 1 }, (_, i) => i % 251));
      const note = (body: Buffer, receivedAt: number) => ({
        topicUrl: 'http://t/parts',
        receivedAt,
        contentType: 'application/xml',
        linkHeader: '<http://t/parts>; rel="self"',
        body,
      });
      const stored = await repo.appendNotification(note(big, 100));
      await repo.appendNotification(note(Buffer.from('small'), 200));
      assert.deepEqual(await parts(), [PART_BYTES, PART_BYTES, PART_BYTES, 1]);
      const row = await peek.query<{ inline: number; payloadId: string | null }>(
        'SELECT length(body) AS inline, payload_id AS "payloadId" FROM notifications WHERE seq = $1',
        [stored.seq],
      );
      assert.equal(row.rows[0]!.inline, 0, 'the notification row holds no copy of the body');
      assert.notEqual(row.rows[0]!.payloadId, null);
      assert.ok((await repo.getNotification(stored.topicId, stored.seq))?.body.equals(big));

      assert.equal(await repo.pruneNotifications(150), 1);
      assert.deepEqual(await parts(), [], 'the parts went with their row');
      assert.equal(
        (await repo.getNotification(stored.topicId, stored.seq + 1))?.body.toString(),
        'small',
      );
    } finally {
      await peek.end();
      await repo.close();
    }
  },
);

test(
  'postgres: promise 1: parts written in a transaction that rolls back leave nothing behind',
  { skip },
  async () => {
    if ('skip' in server) return;
    const url = server.newDatabase('parts-rollback');
    const repo = await openPostgresRepository(url, { listen: false });
    await repo.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('BEGIN');
      await appendInTransaction(client as pg.PoolClient, [
        {
          topicUrl: 'http://t/rolled-back',
          receivedAt: 1,
          contentType: 'application/xml',
          linkHeader: '<http://t/rolled-back>; rel="self"',
          body: Buffer.alloc(PART_BYTES * 2, 0x61),
        },
      ]);
      const during = await client.query<{ n: number }>(
        'SELECT COUNT(*)::int AS n FROM notification_parts',
      );
      assert.equal(during.rows[0]!.n, 2, 'the parts are written inside the transaction');
      await client.query('ROLLBACK');
      const after = await client.query<{ n: number }>(
        'SELECT (SELECT COUNT(*) FROM notification_parts)::int + (SELECT COUNT(*) FROM notifications)::int AS n',
      );
      assert.equal(after.rows[0]!.n, 0);
    } finally {
      await client.end();
    }
  },
);

test(
  'postgres: M-3, promise 1: a batch in one statement places each notification by arrival per topic, wakes the other processes once per topic with its last seq, and leaves nothing when it fails',
  { skip },
  async () => {
    if ('skip' in server) return;
    const url = server.newDatabase('one-statement');
    await (await openPostgresRepository(url, { listen: false })).close();
    const pool = new pg.Pool({ connectionString: url });
    const listener = new pg.Client({ connectionString: url });
    await listener.connect();
    const woken: unknown[] = [];
    listener.on('notification', (m) => woken.push(decodeEvent(m.payload ?? '')));
    await listener.query(`LISTEN ${HUB_CHANNEL}`);
    const note = (topicUrl: string, tag: string) => ({
      topicUrl,
      receivedAt: 5,
      contentType: 'application/xml',
      linkHeader: `<${topicUrl}>; rel="self"`,
      body: Buffer.from(tag),
    });
    const stored = async () =>
      (
        await pool.query<{ url: string; seq: number; body: Buffer }>(
          'SELECT t.url, n.seq, n.body FROM notifications n JOIN topics t ON t.id = n.topic_id ORDER BY t.url, n.seq',
        )
      ).rows.map((r) => `${r.url} ${r.seq} ${r.body.toString()}`);
    const wokenBy = async (n: number) => {
      for (let i = 0; i < 200 && woken.length < n; i++) await new Promise((r) => setTimeout(r, 10));
      return woken.splice(0);
    };
    try {
      // Arrival order differs from the topics' URL order (the order their rows are locked in).
      const first = await appendInOneStatement(pool, [
        note('http://t/b', 'b1'),
        note('http://t/a', 'a1'),
        note('http://t/b', 'b2'),
        note('http://t/c', 'c1'),
      ]);
      const second = await appendInOneStatement(pool, [
        note('http://t/a', 'a2'),
        note('http://t/b', 'b3'),
      ]);
      const ids = (
        await pool.query<{ url: string; id: number }>('SELECT url, id FROM topics')
      ).rows.reduce((m, r) => m.set(r.url, r.id), new Map<string, number>());
      const at = (topic: string, seq: number) => ({ topicId: ids.get(`http://t/${topic}`)!, seq });
      assert.deepEqual(first, [at('b', 1), at('a', 1), at('b', 2), at('c', 1)]);
      assert.deepEqual(second, [at('a', 2), at('b', 3)]);
      assert.deepEqual(await stored(), [
        'http://t/a 1 a1',
        'http://t/a 2 a2',
        'http://t/b 1 b1',
        'http://t/b 2 b2',
        'http://t/b 3 b3',
        'http://t/c 1 c1',
      ]);
      const published = (topic: string, seq: number) => ({ kind: 'published', ...at(topic, seq) });
      assert.deepEqual(await wokenBy(5), [
        published('a', 1),
        published('b', 2),
        published('c', 1),
        published('a', 2),
        published('b', 3),
      ]);

      // A row the table refuses (no content type) fails the statement: no topic bumped, no row
      // stored, nobody woken; the next batch continues the seqs where they were.
      await assert.rejects(
        appendInOneStatement(pool, [
          note('http://t/a', 'a-lost'),
          { ...note('http://t/d', 'd-lost'), contentType: null as unknown as string },
        ]),
      );
      assert.deepEqual(await appendInOneStatement(pool, [note('http://t/a', 'a3')]), [at('a', 3)]);
      assert.equal((await stored()).filter((r) => r.includes('lost')).length, 0);
      assert.equal(
        (await pool.query('SELECT 1 FROM topics WHERE url = $1', ['http://t/d'])).rowCount,
        0,
      );
      assert.deepEqual(await wokenBy(1), [published('a', 3)]);
    } finally {
      await listener.end();
      await pool.end();
    }
  },
);
