import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// An install that skipped building the native addon still looks "green"; this test catches it.
test('better-sqlite3 native addon is built and opens a WAL database file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rsnotify-ws-'));
  try {
    const db = new Database(join(dir, 'x.db'));
    assert.equal(db.pragma('journal_mode = WAL', { simple: true }), 'wal');
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
