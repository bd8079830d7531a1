// A subscriber store on a fresh SQLite file in a temporary directory, closed and removed after the test.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../src/store/index.js';

export async function tempStore(t: { after: (fn: () => Promise<void>) => void }) {
  const dir = await mkdtemp(join(tmpdir(), 'rsn-store-'));
  const file = join(dir, 'sub', 'subscriber.db');
  const store = openSqliteStore({ file });
  t.after(async () => {
    await store.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });
  return { store, file };
}
