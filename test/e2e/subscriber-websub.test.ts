// Subscriber-side WebSub behaviour end to end: the real subscriber daemon, the simulated Source, and
// a small fake hub that speaks real HTTP (subscriber-fake-hub.ts) where the real hub cannot produce
// the case (307, refusal, denial, verification before the 202, wrong or missing signatures).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  startSubscriber,
  unsubscribeSource,
  type RunningSubscriber,
  type SubscriberConfig,
} from '@rsnotify/subscriber';
import { startSourceSimulator, type SourceSimulator } from '../src/source-simulator/index.js';
import { waitFor } from '../src/harness/index.js';
import { startFakeHub, type FakeHub, type FakeHubBehaviour } from './subscriber-fake-hub.js';
import { captureLog, CATCH_UP_END_EVENTS, type CapturedLog } from './subscriber-log-capture.js';
import {
  mirrorEquals,
  subscriberConfig,
  workspace,
  diffMirror,
  isSyncedTo,
} from './subscriber-helpers.js';

interface Rig {
  hub: FakeHub;
  sim: SourceSimulator;
  sub: RunningSubscriber;
  mirrorDir: string;
  cfg: SubscriberConfig;
}

async function rig(
  t: { after: (fn: () => Promise<void>) => void },
  hubBehaviour: Partial<FakeHubBehaviour> = {},
  sourceExtra: Record<string, unknown> = {},
  log?: CapturedLog,
): Promise<Rig> {
  const ws = await workspace('rsn-websub-');
  const hub = await startFakeHub(hubBehaviour);
  const sim = await startSourceSimulator({ seed: 7, initialResources: 20, hubUrl: hub.url });
  const cfg = subscriberConfig(ws, sim.wellKnownUrl, sourceExtra);
  const sub = await startSubscriber(cfg, log ? { logger: log.logger } : {});
  t.after(async () => {
    await sub.close();
    await sim.close();
    await hub.close();
    await ws.remove();
  });
  return { hub, sim, sub, mirrorDir: ws.mirrorDir, cfg };
}

async function converged(r: Rig, what: string): Promise<void> {
  await r.sim.flush();
  await waitFor(
    async () =>
      (await mirrorEquals(r.mirrorDir, r.sim.snapshot())) &&
      isSyncedTo((await r.sub.status())[0], r.sim.lastUntil()),
    {
      timeoutMs: 30_000,
      what,
    },
  ).catch(async (err) => {
    const d = await diffMirror(r.mirrorDir, r.sim.snapshot());
    throw new Error(
      `${(err as Error).message}; status ${JSON.stringify(await r.sub.status())}; diff missing=${d.missing.length} different=${d.different.length} extra=${d.extra.length}`,
    );
  });
}

test('WS-4/WS-5/WS-7: the subscribe request is form-encoded with a capability callback and a secret, stored before it is sent', async (t) => {
  // The fake hub verifies BEFORE answering 202: only a record committed before the POST passes.
  const r = await rig(t, { verifyBeforeAnswer: true });
  await waitFor(() => r.hub.subscriptions.find((s) => s.state === 'active'), {
    what: 'verified subscription',
  });
  const req = r.hub.requests[0]!;
  assert.equal(req['hub.mode'], 'subscribe');
  assert.equal(req['hub.topic'], r.sim.topicUrl);
  assert.equal(req['hub.lease_seconds'], '600');
  assert.ok(req['hub.callback']!.startsWith(r.sub.callbackBaseUrl + '/callback/'));
  assert.ok(req['hub.callback']!.split('/callback/')[1]!.length >= 32, 'unguessable token');
  assert.ok(
    req['hub.secret'] && Buffer.byteLength(req['hub.secret']) < 200,
    'secret under 200 bytes (WH-8)',
  );
  const status = (await r.sub.status())[0]!;
  assert.equal(status.mode, 'push');
  assert.equal(status.subscriptionState, 'active');
  assert.equal(status.topic, r.sim.topicUrl);
  // And notifications flow: the mirror converges to the Source, byte for byte.
  for (let i = 0; i < 5; i++) await r.sim.changeBatch(3);
  await converged(r, 'mirror equals the Source');
});

test('WS-6: a 307 from the hub is followed by re-POSTing the same body to Location', async (t) => {
  // A relative Location on the same fake hub (it serves every path).
  const r = await rig(t, { subscribeStatus: 307, redirectTo: '/hub-moved' });
  await waitFor(() => r.hub.subscriptions.find((s) => s.state === 'active'), {
    what: 'verified after redirect',
  });
  const paths = r.hub.requests.map((q) => q.path);
  assert.ok(paths.includes('/hub') && paths.includes('/hub-moved'), paths.join(','));
  const [first, second] = [
    r.hub.requests.find((q) => q.path === '/hub')!,
    r.hub.requests.find((q) => q.path === '/hub-moved')!,
  ];
  const { path: _a, ...a } = first;
  const { path: _b, ...b } = second;
  assert.deepEqual(a, b, 'same body re-POSTed');
});

test("WS-6: a 4xx is recorded with the hub's text and retried with backoff; a hub that recovers gets a new request", async (t) => {
  const r = await rig(t, { subscribeStatus: 400, subscribeBody: 'hub.topic not allowed here' });
  await waitFor(
    async () => (await r.sub.status())[0]?.lastError?.includes('hub.topic not allowed here'),
    { what: 'error with hub body in status' },
  );
  await waitFor(() => r.hub.requests.length >= 2, { what: 'a retry' });
  const callbacks = new Set(r.hub.requests.map((q) => q['hub.callback']));
  assert.equal(callbacks.size, r.hub.requests.length, 'WS-5: every attempt has its own callback');
  r.hub.behaviour.subscribeStatus = 202;
  await waitFor(async () => (await r.sub.status())[0]?.subscriptionState === 'active', {
    what: 'active after the hub recovered',
  });
});

test('hub down (5xx): retried with backoff until it answers', async (t) => {
  const r = await rig(t, { subscribeStatus: 503, subscribeBody: 'maintenance' });
  await waitFor(() => r.hub.requests.length >= 3, { what: 'three attempts' });
  r.hub.behaviour.subscribeStatus = 202;
  await waitFor(async () => (await r.sub.status())[0]?.subscriptionState === 'active', {
    what: 'active',
  });
});

test('WS-10: a denial is recorded and reported, and not retried in a loop', async (t) => {
  const r = await rig(t, { deny: true });
  await waitFor(async () => (await r.sub.status())[0]?.subscriptionState === 'denied', {
    what: 'denied',
  });
  const status = (await r.sub.status())[0]!;
  assert.equal(status.deniedReason, 'denied by the fake hub');
  assert.match(status.lastError ?? '', /denied/);
  const count = r.hub.requests.length;
  // Retries here back off from 200 ms: a loop would have sent several more within this wait.
  await new Promise((res) => setTimeout(res, 1_500));
  assert.equal(r.hub.requests.length, count);
});

test('WS-8, WH-9, M-7: a notification the hub accepted before activating the subscription comes from the Change Lists', async (t) => {
  const log = captureLog();
  // gapTimeout is the time the hub is taken to activate us by; the steps below take far less.
  const r = await rig(t, { holdActivation: true }, { gapTimeout: '3s' }, log);
  await waitFor(() => log.events(...CATCH_UP_END_EVENTS).some((e) => e.reason === 'resubscribed'), {
    what: 'the catch-up at the verification',
  });
  // Confirmed, and held: the hub has not activated us yet.
  await waitFor(() => r.hub.subscriptions[0]?.state === 'pending', { what: 'confirmed, held' });
  const before = (await r.sub.status())[0]!.syncedUntil;
  await r.sim.changeBatch(2);
  await r.sim.flush();
  r.hub.activate();
  await converged(r, 'the change published before the activation applied');
  assert.equal(r.hub.deliveries.length, 0, 'nothing was delivered: the lists brought it');
  assert.notEqual((await r.sub.status())[0]!.syncedUntil, before);
  await waitFor(() => log.events('subscription.activation_settled').length > 0, {
    what: 'the settling logged',
  });
  assert.equal(log.events('subscription.activation_unproven').length, 0);
});

test('WS-15: deliveries with a wrong signature are answered 2xx but not applied, and counted', async (t) => {
  const log = captureLog();
  const r = await rig(t, { signing: 'wrong' }, {}, log);
  // The position settles once the lists have proved it past the activation (M-7): until then it
  // may still move, so wait for that outcome before taking it.
  await waitFor(() => log.events('subscription.activation_settled').length > 0, {
    what: 'the position settled after the activation',
  });
  const before = (await r.sub.status())[0]!.syncedUntil;
  assert.ok(before, 'a position after the baseline');
  await r.sim.changeBatch(2);
  await r.sim.flush();
  await waitFor(() => r.hub.deliveries.length >= 1, { what: 'delivery attempted' });
  assert.ok(r.hub.deliveries.every((d) => d.status >= 200 && d.status < 300));
  await waitFor(async () => (await r.sub.status())[0]!.ignoredDeliveries >= 1, {
    what: 'ignored delivery counted',
  });
  const after = (await r.sub.status())[0]!;
  assert.equal(after.syncedUntil, before);
});

test('WS-16: unsigned deliveries on a subscription with a secret get 403, never 410', async (t) => {
  const r = await rig(t, { signing: 'none' });
  await waitFor(async () => (await r.sub.status())[0]?.subscriptionState === 'active', {
    what: 'active',
  });
  await r.sim.changeBatch(1);
  await r.sim.flush();
  await waitFor(() => r.hub.deliveries.length >= 1, { what: 'delivery attempted' });
  assert.deepEqual(
    r.hub.deliveries.map((d) => d.status),
    [403],
  );
});

test('RT-13/WS-5: the lease is renewed before it ends with a fresh callback and secret; the old callback is unsubscribed', async (t) => {
  const r = await rig(t, { leaseSeconds: 2 });
  await waitFor(() => r.hub.requests.filter((q) => q['hub.mode'] === 'subscribe').length >= 2, {
    what: 'renewal request',
    timeoutMs: 15_000,
  });
  const subs = r.hub.requests.filter((q) => q['hub.mode'] === 'subscribe');
  assert.notEqual(subs[0]!['hub.callback'], subs[1]!['hub.callback']);
  assert.notEqual(subs[0]!['hub.secret'], subs[1]!['hub.secret']);
  await waitFor(
    () =>
      r.hub.requests.find(
        (q) => q['hub.mode'] === 'unsubscribe' && q['hub.callback'] === subs[0]!['hub.callback'],
      ),
    { what: 'old callback unsubscribed', timeoutMs: 15_000 },
  );
  await waitFor(
    () =>
      r.hub.subscriptions.find((s) => s.callback === subs[0]!['hub.callback'])?.state ===
      'unsubscribed',
    { what: 'unsubscribe verified (WS-19)' },
  );
  // Notifications keep flowing on the renewed subscription.
  await r.sim.changeBatch(2);
  await converged(r, 'mirror equals the Source after renewal');
});

test('WS-19: `unsubscribe NAME` while the daemon runs: the daemon answers the verification and does not subscribe again', async (t) => {
  const r = await rig(t);
  await waitFor(async () => (await r.sub.status())[0]?.subscriptionState === 'active', {
    what: 'active',
  });
  const result = await unsubscribeSource(r.cfg, 'sim', { waitMs: 10_000 });
  assert.deepEqual(result, { requested: 1, confirmed: 1 });
  assert.equal(r.hub.subscriptions[0]?.state, 'unsubscribed');
  assert.equal((await r.sub.status())[0]?.subscriptionState, 'unsubscribed');
  const count = r.hub.requests.length;
  await new Promise((res) => setTimeout(res, 1_000));
  assert.equal(r.hub.requests.length, count, 'no new subscribe request');
});

test('WS-3/RA-4: discovery runs again before each renewal, so a Source that moved to another hub is followed', async (t) => {
  const r = await rig(t, { leaseSeconds: 2 });
  const other = await startFakeHub();
  t.after(() => other.close());
  await waitFor(() => r.hub.subscriptions.find((s) => s.state === 'active'), {
    what: 'subscribed at the first hub',
  });
  r.sim.setHub(other.url); // the Capability List and the topic's Link header now name the other hub
  await waitFor(() => other.subscriptions.find((s) => s.state === 'active'), {
    what: 'subscribed at the new hub at renewal',
    timeoutMs: 15_000,
  });
  await waitFor(() => r.hub.subscriptions.every((s) => s.state !== 'active'), {
    what: 'the old hub subscription ended',
    timeoutMs: 15_000,
  });
  const status = (await r.sub.status())[0]!;
  assert.equal(status.hub, other.url);
  await r.sim.changeBatch(2);
  await converged(r, 'mirror equals the Source via the new hub');
});
