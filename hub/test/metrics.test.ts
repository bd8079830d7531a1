// The hub's metrics as a scrape shows them: values counted in plain numbers on the delivery path
// (deliveries, latencies) read the same as prom-client's own metrics fed each value as it came.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Histogram, Registry } from 'prom-client';
import { HubMetrics } from '../src/observability/index.js';

const LATENCY = 'rsnotify_hub_delivery_latency_seconds';

function hubMetrics(): HubMetrics {
  return new HubMetrics({
    subscriptionCounts: () => Promise.resolve({ active: 0, expired: 0, pending: 0 }),
    queueDepth: () => 0,
    inFlight: () => 0,
  });
}

/** The exposition lines of one metric family (its samples and their values). */
function family(text: string, name: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(`${name}_`));
}

test('delivery latencies recorded between scrapes are all in the next scrape, bucket by bucket, as prom-client counts them', async () => {
  const metrics = hubMetrics();
  const reference = new Histogram({
    name: LATENCY,
    help: 'reference',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [new Registry()],
  });
  const referenceText = async () => {
    const r = new Registry();
    r.registerMetric(reference);
    return r.metrics();
  };
  // 2,500 values in two scrapes: values on bucket bounds, between them and past the last one.
  const values = Array.from(
    { length: 2_500 },
    (_, i) => [0.001, 0.0037, 0.5, 301, i / 997][i % 5]!,
  );
  for (const v of values.slice(0, 1_700)) {
    metrics.observeDeliveryLatency(v);
    reference.observe(v);
  }
  const first = family(await metrics.registry.metrics(), LATENCY);
  assert.ok(first.includes(`${LATENCY}_count 1700`), first.join('\n'));
  assert.deepEqual(first, family(await referenceText(), LATENCY));
  for (const v of values.slice(1_700)) {
    metrics.observeDeliveryLatency(v);
    reference.observe(v);
  }
  const second = family(await metrics.registry.metrics(), LATENCY);
  assert.ok(second.includes(`${LATENCY}_count 2500`), second.join('\n'));
  assert.ok(second.includes(`${LATENCY}_bucket{le="0.001"} 500`), second.join('\n'));
  assert.deepEqual(second, family(await referenceText(), LATENCY));
});

test('a scrape with no delivery since the last one shows the same latency counts again', async () => {
  const metrics = hubMetrics();
  metrics.observeDeliveryLatency(0.002);
  const first = family(await metrics.registry.metrics(), LATENCY);
  const again = family(await metrics.registry.metrics(), LATENCY);
  assert.ok(first.includes(`${LATENCY}_count 1`));
  assert.deepEqual(again, first);
});

test("a registry reset empties the latency histogram, as it empties prom-client's own", async () => {
  const metrics = hubMetrics();
  metrics.observeDeliveryLatency(0.002);
  metrics.observeDeliveryLatency(7);
  assert.ok(family(await metrics.registry.metrics(), LATENCY).includes(`${LATENCY}_count 2`));
  metrics.registry.resetMetrics();
  const after = family(await metrics.registry.metrics(), LATENCY);
  assert.ok(after.includes(`${LATENCY}_count 0`), after.join('\n'));
  assert.ok(after.includes(`${LATENCY}_bucket{le="+Inf"} 0`), after.join('\n'));
  assert.ok(after.includes(`${LATENCY}_sum 0`), after.join('\n'));
});
