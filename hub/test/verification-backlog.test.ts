// The verification worker keeps what it read of the due intents (its backlog) and adds the intents
// this process queues to it, so a burst of N subscription requests reads the intents table a few
// times, not once per request and once per finished verification (O(N²) rows: 1,000 subscriptions
// took seconds). Asserted through the real worker, a real SQLite store and real verification GETs:
// every intent is verified, in request order per (topic, callback), with few reads of the store.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createOutboundAgent } from '@rsnotify/shared';
import { createLogger, HubMetrics } from '../src/observability/index.js';
import { openSqliteRepository, type HubRepository, type Intent } from '../src/store/index.js';
import { VerificationWorker } from '../src/subscriptions/index.js';
import { hangingOriginFor, receiverFor, tempDir, waitFor } from './helpers.js';

const TOPIC = 'http://source.test/backlog/topic';
const REQUESTS = 300;

/** The real worker over `store`, with what it verified (or unsubscribed) in `subscribed`. */
function startWorker(
  t: TestContext,
  store: HubRepository,
  options: {
    readonly timeoutMs: number;
    readonly concurrency: number;
    readonly backlogRefreshMs?: number;
  },
) {
  const agent = createOutboundAgent({ allowPrivateNetworks: true, connections: 8 });
  t.after(() => agent.close());
  const subscribed = new Set<string>();
  const worker = new VerificationWorker({
    store,
    agent,
    logger: createLogger('warn', new Writable({ write: (_c, _e, done) => done() })),
    metrics: new HubMetrics({
      subscriptionCounts: () => Promise.resolve({ active: 0, expired: 0, pending: 0 }),
      queueDepth: () => 0,
      inFlight: () => 0,
    }),
    now: Date.now,
    ...options,
    onSubscribed: (s) => subscribed.add(s.callback),
    onUnsubscribed: (s) => subscribed.delete(s.callback),
  });
  t.after(() => worker.close());
  return { worker, subscribed };
}

/** A subscription request as the store holds it. */
const intentFor = (
  store: HubRepository,
  mode: 'subscribe' | 'unsubscribe',
  callback: string,
  nextAttemptAt = Date.now(),
): Promise<Intent> =>
  store.addIntent({
    mode,
    topicUrl: TOPIC,
    topicAsGiven: TOPIC,
    callback,
    secret: undefined,
    leaseSeconds: mode === 'subscribe' ? 3600 : undefined,
    reason: undefined,
    nextAttemptAt,
    createdAt: Date.now(),
  });

test('a burst of subscription requests is verified in request order with a few reads of the store', async (t) => {
  const store = openSqliteRepository(join(await tempDir(t), 'hub.db'));
  t.after(() => store.close());
  let reads = 0;
  let rowsRead = 0;
  const counted: HubRepository = Object.assign(Object.create(store) as HubRepository, {
    dueIntents: async (now: number, limit: number) => {
      const due = await store.dueIntents(now, limit);
      reads++;
      rowsRead += due.length;
      return due;
    },
  });
  const receiver = await receiverFor(t);
  // No timed re-read during the test (the next test covers it): the reads counted are those the
  // backlog itself causes, whatever the machine's speed.
  const { worker, subscribed } = startWorker(t, counted, {
    timeoutMs: 5_000,
    concurrency: 2,
    backlogRefreshMs: 600_000,
  });

  const add = (mode: 'subscribe' | 'unsubscribe', i: number): Promise<Intent> =>
    intentFor(store, mode, receiver.url(`/cb/${i}`));
  const withdrawn = (i: number) => i >= 100 && i < REQUESTS && i % 5 === 0;
  for (let i = 0; i < REQUESTS; i++) await add('subscribe', i);
  worker.start();
  await waitFor(() => receiver.verifications.length > 0, 'the first verification GET');
  // The backlog holds the subscribe intents now. Each fifth from the hundredth on is withdrawn by an
  // unsubscribe request, which replaces it in the store (addIntent): the worker must verify the
  // unsubscribe and never the replaced subscribe. The store awaits no I/O, so no verification ends
  // between these requests.
  for (let i = 100; i < REQUESTS; i += 5) worker.queued(await add('unsubscribe', i));
  // And new requests that arrive while the worker is busy join its backlog.
  for (let i = REQUESTS; i < REQUESTS + 60; i++) worker.queued(await add('subscribe', i));
  const total = REQUESTS + 60;

  await waitFor(
    async () => (await store.dueIntents(Date.now(), 10)).length === 0,
    'no intent left',
  );
  await waitFor(() => receiver.verifications.length >= total, 'a GET per intent');
  const modes = new Map<number, string[]>();
  for (const v of receiver.verifications) {
    const i = Number(/\/cb\/(\d+)/.exec(v.path)?.[1]);
    modes.set(i, [...(modes.get(i) ?? []), v.query.get('hub.mode') ?? '']);
  }
  for (let i = 0; i < total; i++)
    assert.deepEqual(modes.get(i), [withdrawn(i) ? 'unsubscribe' : 'subscribe'], `callback ${i}`);
  const expected = Array.from({ length: total }, (_, i) => i)
    .filter((i) => !withdrawn(i))
    .map((i) => receiver.url(`/cb/${i}`));
  assert.deepEqual([...subscribed].sort(), expected.sort());
  t.diagnostic(
    `${total} intents verified with ${reads} reads (${rowsRead} rows) of the intents table`,
  );
  // Reading the due intents again at every request and every finished verification read ~N²/2
  // rows (here over 50,000); the backlog reads each intent about once.
  assert.ok(rowsRead <= 2 * total, `${rowsRead} rows read in ${reads} reads`);
});

test('an intent that comes due while a hanging origin holds a long backlog is verified without waiting for that backlog', async (t) => {
  const store = openSqliteRepository(join(await tempDir(t), 'hub.db'));
  t.after(() => store.close());
  const hanging = await hangingOriginFor(t);
  const receiver = await receiverFor(t);
  // Longer than the test: the hanging origin's backlog cannot drain while it runs.
  const { worker, subscribed } = startWorker(t, store, { timeoutMs: 60_000, concurrency: 32 });
  for (let i = 0; i < 50; i++) await intentFor(store, 'subscribe', `${hanging.url}/hang/${i}`);
  worker.start();
  await waitFor(() => hanging.requests() === 4, 'the hanging origin holds its 4 verifications');
  // A retry, as the worker stores it: due a little later, not queued by a request of this process.
  const retry = receiver.url('/retry');
  await intentFor(store, 'subscribe', retry, Date.now() + 300);
  await waitFor(() => subscribed.has(retry), 'the retry verified', 15_000);
  assert.equal(hanging.requests(), 4, 'the hanging origin still holds its verifications');
});
