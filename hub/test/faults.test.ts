// Faulty callbacks next to healthy ones (WH-19, WH-20; a slow callback holds only its
// own slot): callbacks that hang, answer 500, redirect, answer 410 or reset the connection must not
// keep healthy subscribers from receiving everything, in order; once a fault clears, its subscriber
// catches up in order too. Latency is reported as a diagnostic only (timing belongs in bench/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Receiver,
  activeCount,
  hubFor,
  metricValue,
  publishTags,
  subscribe,
  waitFor,
  type DeliverBehaviour,
} from './helpers.js';

const TOPIC = 'http://faults.test/changes';
const N = 200;

function tagsOf(r: Receiver, path: string): string[] {
  return r.deliveriesTo(path).map((d) => /\/res\/([^/]+)\//.exec(d.body.toString())![1]!);
}

function p50(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

test('WH-19, WH-20: hanging, 500, 3xx, 410 and resetting callbacks do not hold up healthy subscribers', async (t) => {
  const { hub } = await hubFor(t, {
    requestTimeoutMs: 300,
    retry: { initialDelayMs: 50, maxDelayMs: 400 },
  });
  const { token } = await hub.addSource('faults', ['http://faults.test/']);
  const faults: Record<string, DeliverBehaviour> = {
    hang: 'hang',
    error500: 500,
    redirect: 302,
    gone: 410,
    reset: 'reset',
  };
  // Each faulty callback lives on its own server (its own origin), like real subscribers do.
  const faulty = new Map<string, Receiver>();
  for (const [name, behaviour] of Object.entries(faults)) {
    const r = await Receiver.start();
    t.after(() => r.close());
    r.deliver = behaviour;
    faulty.set(name, r);
    await subscribe(hub, r, TOPIC, `/${name}`);
  }
  const healthy = await Receiver.start();
  t.after(() => healthy.close());
  const healthyPaths = ['/h1', '/h2', '/h3'];
  for (const p of healthyPaths) await subscribe(hub, healthy, TOPIC, p);
  await waitFor(async () => (await activeCount(hub)) === 8, 'eight subscriptions');

  const publishedAt = new Map<string, number>();
  const tags = Array.from({ length: N }, (_, i) => `f${i}`);
  for (const tag of tags) {
    publishedAt.set(tag, Date.now());
    await publishTags(hub, token, TOPIC, [tag]);
  }
  await waitFor(
    () => healthyPaths.every((p) => healthy.deliveriesTo(p).length >= N),
    'healthy subscribers have everything',
    60_000,
  );
  for (const p of healthyPaths)
    assert.deepEqual(tagsOf(healthy, p), tags, `${p}: everything, in order`);
  // The faulty ones are still stuck on their first notification while the healthy ones finished.
  for (const [name, r] of faulty)
    assert.equal(r.deliveries.length, 0, `${name} acknowledged nothing`);
  assert.ok((await metricValue(hub, 'rsnotify_hub_deliveries_total', 'outcome="failed"')) >= 4);
  // 410 ended that subscription after one attempt (WH-19).
  await waitFor(async () => (await activeCount(hub)) === 7, 'the 410 subscription removed');
  assert.equal(await metricValue(hub, 'rsnotify_hub_deliveries_total', 'outcome="gone"'), 1);
  const latencies = healthy
    .deliveriesTo('/h1')
    .map((d) => d.at - publishedAt.get(/\/res\/([^/]+)\//.exec(d.body.toString())![1]!)!);
  t.diagnostic(`healthy publish-to-receipt p50 ${p50(latencies)} ms next to 5 faulty callbacks`);

  // WH-20: a subscriber that failed keeps its subscription and gets every update once it recovers.
  for (const name of ['hang', 'error500', 'redirect', 'reset']) faulty.get(name)!.deliver = 200;
  await waitFor(
    () =>
      ['hang', 'error500', 'redirect', 'reset'].every(
        (name) => faulty.get(name)!.deliveries.length >= N,
      ),
    'recovered subscribers catch up',
    90_000,
  );
  for (const name of ['hang', 'error500', 'redirect', 'reset']) {
    const r = faulty.get(name)!;
    const unique = [...new Set(tagsOf(r, `/${name}`))];
    assert.deepEqual(unique, tags, `${name}: everything, in order, after recovery`);
  }
  assert.equal(faulty.get('gone')!.deliveries.length, 0);
});
