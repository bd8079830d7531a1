// The PostgreSQL engine against the same store contract as SQLite, on a real server the test run
// starts (scripts/postgres-server.mjs); each case gets a fresh database.
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { testPostgres } from '../../scripts/postgres-server.mjs';
import { openPostgresRepository, type PostgresRepository } from '../src/store/index.js';
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
