// A Source without a change-notification channel: the daemon says so (mode 'poll') and keeps the
// mirror current from the Change Lists alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSubscriber } from '@rsnotify/subscriber';
import { startSourceSimulator } from '../src/source-simulator/index.js';
import { waitFor } from '../src/harness/index.js';
import {
  isSyncedTo,
  mirrorEquals,
  subscriberConfig,
  syncState,
  workspace,
} from './subscriber-helpers.js';

test('no channel in the Capability List: polling mode on the Change List, reported in status', async (t) => {
  const ws = await workspace('rsn-poll-');
  t.after(() => ws.remove());
  const sim = await startSourceSimulator({ seed: 13, initialResources: 10 });
  t.after(() => sim.close());
  const sub = await startSubscriber(
    subscriberConfig(ws, sim.capabilityListUrl, { pollInterval: '200ms' }),
  );
  t.after(() => sub.close());
  await waitFor(
    async () => (await sub.status())[0]?.mode === 'poll' && (await sub.status())[0]?.syncedUntil,
    { what: 'polling mode, baselined' },
  );
  const s = (await sub.status())[0]!;
  assert.equal(s.hub, undefined);
  assert.equal(s.subscriptionState, undefined);
  for (let i = 0; i < 5; i++) await sim.changeBatch(3);
  await waitFor(
    async () =>
      isSyncedTo((await sub.status())[0], sim.lastUntil()) &&
      (await mirrorEquals(ws.mirrorDir, sim.snapshot())),
    { what: 'mirror follows the Change Lists', describe: syncState(() => sub.status(), sim) },
  );
});
