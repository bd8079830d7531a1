// End to end with the real hub: the subscriber killed with -9 in the middle of a stream and started
// again (its CLI as a child process, so the crash is real), and the hub restarted mid-stream. Each
// ends with the mirror equal to the Source byte for byte and the position at the last `until`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readStatus, startSubscriber } from '@rsnotify/subscriber';
import { startSourceSimulator } from '../src/source-simulator/index.js';
import { freePort, sleep, spawnCli, waitFor, type ManagedProcess } from '../src/harness/index.js';
import {
  diffMirror,
  isSyncedTo,
  mirrorEquals,
  startE2EHub,
  subscriberConfig,
  syncState,
  workspace,
  writeConfigFile,
} from './subscriber-helpers.js';

test('a subscriber killed with -9 mid-stream resumes its lease and position without re-subscribing, and converges', async (t) => {
  const ws = await workspace('rsn-kill9-');
  t.after(() => ws.remove());
  const hub = await startE2EHub({ dbFile: join(ws.dir, 'hub.db') });
  t.after(() => hub.close());
  const sim = await startSourceSimulator({ seed: 31, initialResources: 40, batchIntervalMs: 50 });
  t.after(() => sim.close());
  const { token } = await hub.addSource('sim', [sim.topicPrefix]);
  sim.setHub(hub.url, token);
  // The callback URLs the hub holds name this port: the restarted process must get it back.
  const port = await freePort();
  const cfg = subscriberConfig(
    ws,
    sim.wellKnownUrl,
    { gapTimeout: '300ms' },
    { listen: { host: '127.0.0.1', port }, logLevel: 'info' },
  );
  const file = await writeConfigFile(ws, cfg);
  const procs: ManagedProcess[] = [];
  t.after(async () => {
    for (const p of procs) await p.kill9();
  });
  const first = spawnCli('subscriber/src/cli.ts', ['run', '--config', file]);
  procs.push(first);
  await first.waitForEvent('subscription.verified', 30_000);
  await first.waitForEvent('baseline.completed', 30_000);

  sim.start(40);
  await waitFor(async () => (await readStatus(cfg))[0]?.lastAppliedAt, {
    what: 'changes applied before the crash',
  });
  await sleep(300);
  await first.kill9();
  await sleep(500); // the hub's deliveries fail meanwhile and are retried
  const second = spawnCli('subscriber/src/cli.ts', ['run', '--config', file]);
  procs.push(second);
  await second.waitForEvent('position.resumed', 30_000);
  await sleep(500);
  sim.pause();
  await sim.flush();
  await waitFor(
    async () =>
      isSyncedTo((await readStatus(cfg))[0], sim.lastUntil()) &&
      (await mirrorEquals(ws.mirrorDir, sim.snapshot())),
    {
      what: 'converged after kill -9',
      timeoutMs: 40_000,
      describe: syncState(() => readStatus(cfg), sim),
    },
  ).catch(async (err) => {
    const d = await diffMirror(ws.mirrorDir, sim.snapshot());
    throw new Error(
      `${(err as Error).message}; ${JSON.stringify(await readStatus(cfg))}; lastUntil ${sim.lastUntil()}; missing=${d.missing.length} different=${d.different.length} extra=${d.extra.length}`,
    );
  });
  // The lease was far from renewal: the restart kept it instead of subscribing again.
  const resubscribed = second.lines.some((l) => l.includes('"event":"subscription.requested"'));
  assert.equal(resubscribed, false, 'no new subscribe request after the restart');
  assert.equal((await readStatus(cfg))[0]?.subscriptionState, 'active');
  assert.equal(await second.stop(), 0, 'SIGTERM exits cleanly');
});

test('the hub restarted mid-stream: notifications continue and the mirror converges', async (t) => {
  const ws = await workspace('rsn-hubrestart-');
  t.after(() => ws.remove());
  const dbFile = join(ws.dir, 'hub.db');
  let hub = await startE2EHub({ dbFile });
  t.after(() => hub.close());
  const sim = await startSourceSimulator({ seed: 37, initialResources: 30, batchIntervalMs: 50 });
  t.after(() => sim.close());
  const { token } = await hub.addSource('sim', [sim.topicPrefix]);
  sim.setHub(hub.url, token);
  const sub = await startSubscriber(subscriberConfig(ws, sim.wellKnownUrl));
  t.after(() => sub.close());
  await waitFor(
    async () =>
      (await sub.status())[0]?.subscriptionState === 'active' &&
      (await sub.status())[0]?.syncedUntil,
    { what: 'subscribed' },
  );
  sim.start(30);
  await sleep(700);
  const port = hub.port;
  await hub.close();
  await sleep(500); // the Source's posts fail meanwhile and are retried by it
  hub = await startE2EHub({ dbFile, port });
  await sleep(700);
  sim.pause();
  await sim.flush();
  await waitFor(
    async () =>
      isSyncedTo((await sub.status())[0], sim.lastUntil()) &&
      (await mirrorEquals(ws.mirrorDir, sim.snapshot())),
    {
      what: 'converged after the hub restart',
      timeoutMs: 40_000,
      describe: syncState(() => sub.status(), sim),
    },
  );
});
