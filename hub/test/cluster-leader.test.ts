// The cluster leader's lifecycle over its lock (the lock's PostgreSQL side is in cluster.test.ts):
// a hub closed while an attempt to take the lock is in flight must not keep the lock it then gets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterLeader } from '../src/cluster/index.js';
import { createLogger } from '../src/observability/index.js';
import type { LeaderLock } from '../src/store/index.js';

test('cluster leader: closed while taking the lock, it releases the lock the attempt gets and starts no jobs', async () => {
  let grant!: (ok: boolean) => void;
  let held = false;
  let jobsStarted = 0;
  const lock = {
    onLost: () => undefined,
    tryAcquire: () =>
      new Promise<boolean>((resolve) => {
        grant = (ok) => {
          held = ok;
          resolve(ok);
        };
      }),
    release: async () => {
      held = false;
    },
  } as unknown as LeaderLock;
  const leader = new ClusterLeader({
    lock,
    logger: createLogger('silent'),
    nodeId: 'test',
    startJobs: () => {
      jobsStarted++;
      return { stop: async () => undefined };
    },
  });
  const started = leader.start(); // its first attempt waits for the lock
  const closed = leader.close();
  await new Promise((r) => setImmediate(r)); // close() goes as far as it can without the grant
  grant(true); // the lock is granted only after that
  await Promise.all([started, closed]);
  assert.equal(held, false, 'the lock granted to the in-flight attempt was released');
  assert.equal(jobsStarted, 0);
  assert.equal(leader.isLeader, false);
});
