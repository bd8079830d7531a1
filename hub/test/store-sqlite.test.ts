// The SQLite engine against the store contract, on a real database file (migrations applied at open).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { openSqliteRepository } from '../src/store/index.js';
import { runRepositoryContract } from './repository-contract.js';

const root = mkdtempSync(join(tmpdir(), 'rsnotify-hub-store-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

runRepositoryContract('sqlite', async () => {
  const file = join(root, `db-${++n}`, 'hub.db');
  return { repo: openSqliteRepository(file), reopen: async () => openSqliteRepository(file) };
});

test('sqlite: WAL mode, migrations recorded once, reopening an existing database is a no-op', () => {
  const file = join(root, 'wal', 'hub.db');
  openSqliteRepository(file).close();
  openSqliteRepository(file).close();
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
  });
});
