// The bridge store contract on both engines: SQLite files and a real PostgreSQL server the test run
// starts (scripts/postgres-server.mjs), each case on a fresh database; and, PostgreSQL only, a
// committed poll wakes the other hub processes exactly as a publish does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { testPostgres } from '../../scripts/postgres-server.mjs';
import { openPostgresRepository, openSqliteStores, type StoreEvent } from '../src/store/index.js';
import { runBridgeRepositoryContract } from './bridge-repository-contract.js';

const root = mkdtempSync(join(tmpdir(), 'rsnotify-bridge-store-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

runBridgeRepositoryContract('sqlite', async () => {
  const file = join(root, `db-${++n}`, 'hub.db');
  const open = () => {
    const s = openSqliteStores(file);
    return { repo: s.repository, bridge: s.bridge };
  };
  return { ...open(), reopen: async () => open() };
});

const server = await testPostgres();
const skip = 'skip' in server ? server.skip : false;

if (!('skip' in server)) {
  runBridgeRepositoryContract('postgres', async () => {
    const url = server.newDatabase('bridge');
    const open = async () => {
      const repo = await openPostgresRepository(url, { listen: false });
      return { repo, bridge: repo.bridge };
    };
    return { ...(await open()), reopen: open };
  });
} else {
  test('postgres: bridge repository contract', { skip }, () => undefined);
}

test(
  'postgres: a committed poll wakes the other processes (pg_notify published), a rolled-back one does not',
  { skip },
  async () => {
    if ('skip' in server) return;
    const url = server.newDatabase('bridge-wake');
    const poller = await openPostgresRepository(url, { listen: false });
    const other = await openPostgresRepository(url);
    const seen: StoreEvent[] = [];
    other.events.on((e) => seen.push(e));
    try {
      const s = await poller.bridge.addBridgedSource({
        name: 'src',
        pollUrl: 'http://source.example/',
        intervalMs: 1_000,
        now: 1,
      });
      const body = {
        topicUrl: 'http://hub.example/hub/bridge/src',
        receivedAt: 2,
        contentType: 'application/xml',
        linkHeader: '',
        body: Buffer.from('x'),
      };
      const [stored] = await poller.bridge.commitPoll(s.id, {
        generation: 0,
        position: { lists: [], coveredTo: '2026-01-01T00:00:00Z' },
        notifications: [body, body],
        now: 3,
      });
      await poller.bridge
        .commitPoll(s.id, { generation: 0, position: { lists: [] }, notifications: [body], now: 4 })
        .catch(() => undefined);
      const deadline = Date.now() + 30_000;
      while (!seen.some((e) => e.kind === 'published') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      // The stale commit above was refused; give its (absent) event time to show if it were sent.
      await poller.ping();
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(
        seen.filter((e) => e.kind === 'published'),
        [{ kind: 'published', topicId: stored!.topicId, seq: 2 }],
        'one wake-up per topic, carrying its last seq',
      );
      assert.ok(
        seen.some((e) => e.kind === 'sources'),
        'a Source added on one process is announced to the others',
      );
    } finally {
      await poller.close();
      await other.close();
    }
  },
);
