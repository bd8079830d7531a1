// The subscriber under the intake benchmark, in a process of its own so that its CPU and memory are
// measured apart from the driver's: a fake hub (only the verification matters here), a simulated
// Source and the real subscriber with one verified subscription. Tells the parent over IPC where
// the callback is and which secret signs for it; lives until killed. Asked `drain`, it answers once
// everything it accepted is applied (nothing buffered, no lag), so the parent can meter the apply
// work a burst left behind with the burst.
//
// With INTAKE_APPLY=held the subscriber accepts with nothing applied: it is to take a baseline
// first, and the Source answers every Resource List request 503 (listUnavailableScope all-lists),
// so the deliveries wait in the inbox, as they do for a Source whose lists are down. The intake
// (signature, durable commit, 202, hand-over) is the same; the apply is left out. Such a child
// does not answer `drain` (nothing is applied before the baseline).
import { startSubscriber } from '@rsnotify/subscriber';
import { startSourceSimulator } from '../../src/source-simulator/index.js';
import { waitFor } from '../../src/harness/index.js';
import { startFakeHub } from '../../e2e/subscriber-fake-hub.js';
import { subscriberConfig } from '../../e2e/subscriber-helpers.js';

const dir = process.env.WORK_DIR!;
const hub = await startFakeHub();
const held = process.env.INTAKE_APPLY === 'held';
const sim = await startSourceSimulator({ seed: 1, initialResources: 5, hubUrl: hub.url });
if (held)
  Object.assign(sim.faults, {
    listUnavailableScope: 'all-lists',
    listUnavailableNext: Number.MAX_SAFE_INTEGER,
    retryAfterSeconds: 3600,
  });
const ws = {
  dir,
  dataDir: `${dir}/data`,
  mirrorDir: `${dir}/mirror`,
  remove: async () => undefined,
};
const sub = await startSubscriber({
  ...subscriberConfig(ws, sim.wellKnownUrl, { baseline: held ? 'resourcelist' : 'none' }),
  logLevel: 'warn',
});
const active = await waitFor(() => hub.subscriptions.find((s) => s.state === 'active'), {
  what: 'verified subscription',
});
process.send!({ callback: active.callback, secret: active.secret, drain: held ? 'no' : 'yes' });
process.on('message', (m: { cmd?: string }) => {
  if (m.cmd !== 'drain') return;
  void waitFor(
    async () => {
      const [s] = await sub.status();
      return s !== undefined && s.buffered === 0 && s.lagMs === 0;
    },
    { what: 'every accepted notification applied', timeoutMs: 300_000, intervalMs: 100 },
  ).then(() => process.send!({ drained: true }));
});
process.on('SIGTERM', () => {
  void (async () => {
    await sub.close();
    await sim.close();
    await hub.close();
    process.exit(0);
  })();
});
