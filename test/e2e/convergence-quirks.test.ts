// Convergence against a Source with the quirks real Sources have (RC-21..RC-25): Change Lists
// without `from`, deletes without `datetime`, collections that are files too and `%2F` names,
// history truncated while changes continue, and changes the Source never announces. Notification
// faults stay on; the daemon reconciles every few seconds. The mirror must end byte-identical and
// `audit` must exit 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allFaultsOn,
  assertConverged,
  produce,
  startRig,
  stopRig,
  waitForSubscription,
} from './convergence-rig.js';

test('convergence with real-Source quirks on (RC-21..RC-25): lists without from, deletes without datetime, collections and %2F names, truncated history and a silently lost change; reconciliation repairs', async (t) => {
  const rig = await startRig(41, { reconcileInterval: '3s' });
  t.after(() => stopRig(rig));
  await waitForSubscription(rig);
  Object.assign(rig.sim.faults, { omitChangeListFrom: 1, timelessDeletes: 1, pathQuirks: 1 });
  allFaultsOn(rig.sim);
  await produce(rig.sim, 4_000);
  rig.sim.faults.truncateHistoryNext = 20; // the oldest history goes while changes continue
  await produce(rig.sim, 3_000);
  rig.sim.faults.loseChangeNext = 2; // never announced, in no list: only reconciliation finds them
  await produce(rig.sim, 3_000);
  await assertConverged(rig);
  assert.ok(
    rig.subscriber.lines.some((l) => l.includes('"reconcile.completed"')),
    'the daemon reconciled',
  );
});
