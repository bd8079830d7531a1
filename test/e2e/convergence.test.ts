// Convergence suite (README promise 3, RN-5, M-7): hub, Source simulator and
// subscriber run together with random changes and every notification fault on; after the changes
// stop, the mirror must become byte-identical to the Source, `syncedUntil` must equal the Source's
// last `until`, and `audit` must report in sync. The second test restarts the hub once and kills
// the subscriber with -9 once during the run, with `queuedDeliveryBytes` at 1: a delivery that
// comes while another waits to be applied waits in the inbox alone and is read back from it
// (runner/inbox-feed.ts), as the hub's backlog after the restarts arrives.
import { test } from 'node:test';
import {
  allFaultsOn,
  assertConverged,
  HUB_CLI,
  produce,
  startRig,
  stopRig,
  SUBSCRIBER_CLI,
  waitForSubscription,
} from './convergence-rig.js';
import { spawnCli } from '../src/harness/index.js';

test('convergence: random changes with drops, reordering and duplicates end in a byte-identical mirror (promise 3, RN-5, M-7)', async (t) => {
  const rig = await startRig(11);
  t.after(() => stopRig(rig));
  await waitForSubscription(rig);
  allFaultsOn(rig.sim);
  await produce(rig.sim, 12_000);
  await assertConverged(rig);
});

test('convergence survives a hub restart and a subscriber killed with -9 mid-stream, deliveries read back from the inbox', async (t) => {
  const rig = await startRig(23, { queuedDeliveryBytes: 1 });
  t.after(() => stopRig(rig));
  await waitForSubscription(rig);
  allFaultsOn(rig.sim);
  await produce(rig.sim, 4_000);

  // Hub restart: stop it (in-flight deliveries stay queued in SQLite), keep changing, start it again.
  await rig.hub.stop();
  await produce(rig.sim, 1_500);
  rig.hub = spawnCli(HUB_CLI, rig.hubArgs);
  await rig.hub.waitForEvent('hub.listening');
  await produce(rig.sim, 3_000);

  // Subscriber crash: nothing flushed, nothing said; changes continue while it is down.
  await rig.subscriber.kill9();
  await produce(rig.sim, 1_500);
  rig.subscriber = spawnCli(SUBSCRIBER_CLI, ['run', '--config', rig.configFile]);
  await produce(rig.sim, 3_000);

  await assertConverged(rig);
});
