// The simulator as a registered Source of the REAL hub (@rsnotify/hub): its notifications are
// accepted (RT-7: 200), and a wrong token is refused. Skipped, and says so, until the hub package
// exports startHub.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as hubPackage from '@rsnotify/hub';
import { startSourceSimulator } from './index.js';

/** The hub's contract, declared here so this file compiles before the hub exists. */
interface RunningHub {
  readonly url: string;
  addSource(name: string, prefixes: string[]): Promise<{ token: string }>;
  close(): Promise<void>;
}
type StartHub = (options: {
  host?: string;
  port?: number;
  dbFile: string;
  openPublishing?: boolean;
  allowPrivateNetworks?: boolean;
  logLevel?: string;
}) => Promise<RunningHub>;

const startHub = (hubPackage as Record<string, unknown>).startHub as StartHub | undefined;

test(
  "RT-4, RT-5, RT-7: the real hub accepts the simulator's notifications (200) and refuses a wrong token",
  { skip: startHub ? false : '@rsnotify/hub does not export startHub yet' },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'rsnotify-sim-hub-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const hub = await startHub!({
      host: '127.0.0.1',
      port: 0,
      dbFile: join(dir, 'hub.db'),
      openPublishing: false,
      allowPrivateNetworks: true,
      logLevel: 'silent',
    });
    t.after(() => hub.close());
    const sim = await startSourceSimulator({
      seed: 3,
      initialResources: 10,
      maxEntriesPerNotification: 5,
    });
    t.after(() => sim.close());
    const { token } = await hub.addSource('simulator', [sim.topicPrefix]);
    sim.setHub(hub.url, token);
    await sim.changeBatch(3);
    await sim.changeBatch(12); // RN-13 split: 5 + 5 + 2
    await sim.flush();
    const log = sim.postLog();
    assert.equal(log.length, 4);
    for (const r of log)
      assert.deepEqual(
        { fate: r.fate, status: r.status },
        { fate: 'accepted', status: 200 },
        `notification ${r.seq}`,
      );

    sim.setHub(hub.url, 'not-the-token');
    await sim.changeBatch(1);
    await sim.flush();
    const refused = sim.postLog().at(-1)!;
    assert.equal(refused.fate, 'rejected');
    assert.ok(refused.status === 401 || refused.status === 403, `refused with ${refused.status}`);
  },
);
