// The PostgreSQL engine against the same store contract as SQLite, on a real server the test run
// starts (scripts/postgres-server.mjs); each case gets a fresh database.
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { testPostgres } from '../../scripts/postgres-server.mjs';
import { openPostgresRepository, type PostgresRepository } from '../src/store/index.js';
import { PART_BYTES } from '@rsnotify/service-kit';
import { appendInTransaction } from '../src/store/postgres/appends.js';
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
