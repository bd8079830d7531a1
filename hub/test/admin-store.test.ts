// The AdminStore contract on SQLite (a temp file) and PostgreSQL (the throw-away server of the test run).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { testPostgres } from '../../scripts/postgres-server.mjs';
import { openPostgresRepository, openSqliteRepository } from '../src/store/index.js';
import { openSqliteAdminStore } from '../src/store/sqlite/admin.js';
import { openPostgresAdminStore } from '../src/store/postgres/admin.js';
import { runAdminStoreContract } from './admin-store-contract.js';

const root = mkdtempSync(join(tmpdir(), 'rsn-admin-store-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

runAdminStoreContract('sqlite', async () => {
  const file = join(root, `hub-${++n}.db`);
  const repo = openSqliteRepository(file);
  const admin = openSqliteAdminStore(file);
  return {
    repo,
    admin,
    close: async () => {
      await admin.close();
      await repo.close();
    },
  };
});

const server = await testPostgres();
runAdminStoreContract(
  'postgres',
  async () => {
    if ('skip' in server) throw new Error('unreachable');
    const url = server.newDatabase('admin');
    const repo = await openPostgresRepository(url, { listen: false });
    const admin = await openPostgresAdminStore(url);
    return {
      repo,
      admin,
      close: async () => {
        await admin.close();
        await repo.close();
      },
    };
  },
  'skip' in server ? server.skip : false,
);
