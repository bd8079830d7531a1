// One arm of the scheduler bench (scenarios/scheduler.ts) in a process of its own, on a hub build
// (dist/). A burst like the hub fan-out bench's: 1,000 subscriptions of one topic on 4 callback
// origins, 20 notifications, and a sender that answers each POST on the next turn of the event loop,
// so the per-origin budget parks and wakes as it does at a real fan-out. No sockets, no database:
// what is measured is the scheduler's own work per delivery (cursors, budget, cache, metrics, the
// sender's promise), against the bare arm, which drives the same sender from a plain FIFO of
// 256 in flight (the hub's --max-in-flight), the least any scheduler does.
// Usage: scheduler-child.ts <scheduler|bare> <hub checkout root> <bursts>
// Prints the CPU µs per delivery: the median of the bursts after two warm-up bursts.
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import type * as Delivery from '../../../hub/src/delivery/index.js';
import type * as Observability from '../../../hub/src/observability/index.js';
import type { StoredNotification, Subscription } from '../../../hub/src/store/index.js';

const [arm, hubRoot, burstsArg] = process.argv.slice(2);
const bursts = Number(burstsArg);
const SUBSCRIPTIONS = 1000;
const ORIGINS = 4;
const NOTIFICATIONS = 20;
const IN_FLIGHT = 256;
const TOPIC = 'http://source.test/changes';

const OK = { kind: 'delivered', status: 202 } as const;
let delivered = 0;
const send = (): Promise<typeof OK> =>
  new Promise((resolve) =>
    setImmediate(() => {
      delivered++;
      resolve(OK);
    }),
  );

const notifications = new Map<number, StoredNotification>();
let seq = 0;
function nextNotification(): StoredNotification {
  seq++;
  const n: StoredNotification = {
    topicId: 1,
    seq,
    receivedAt: Date.now(),
    contentType: 'application/xml',
    linkHeader: `<${TOPIC}>; rel="self", <http://hub.test/hub>; rel="hub"`,
    body: Buffer.from(`<urlset seq="${seq}"/>`),
  };
  notifications.set(seq, n);
  return n;
}

/** Publishes one burst to the arm; resolves when every delivery of it is answered. */
type Arm = (burst: readonly StoredNotification[]) => Promise<void>;

async function waitFor(target: number): Promise<void> {
  while (delivered < target) await new Promise((r) => setImmediate(r));
}

async function schedulerArm(): Promise<Arm> {
  const dist = (path: string): string => pathToFileURL(join(hubRoot!, 'hub/dist', path)).href;
  const delivery = (await import(dist('delivery/index.js'))) as typeof Delivery;
  const observability = (await import(dist('observability/index.js'))) as typeof Observability;
  const subscriptions: Subscription[] = [];
  for (let id = 1; id <= SUBSCRIPTIONS; id++) {
    subscriptions.push({
      id,
      topicId: 1,
      topicUrl: TOPIC,
      topicAsGiven: TOPIC,
      callback: `http://receiver-${id % ORIGINS}.test/callback/${id}`,
      secret: undefined,
      algorithm: 'sha256',
      leaseSeconds: 86_400,
      leaseExpiresAt: Number.MAX_SAFE_INTEGER,
      deliveredSeq: 0,
      nextAttemptAt: 0,
      attempts: 0,
      firstFailedAt: undefined,
      lastStatus: undefined,
      lastError: undefined,
    });
  }
  const scheduler = new delivery.DeliveryScheduler({
    store: {
      listTopics: () => Promise.resolve([{ id: 1, url: TOPIC, lastSeq: 0 }]),
      listSubscriptions: () => Promise.resolve(subscriptions),
      getNotification: (_topic, s) => Promise.resolve(notifications.get(s)),
      saveCursors: () => Promise.resolve(),
      removeSubscriptionById: () => Promise.resolve(),
    },
    send,
    cache: new delivery.NotificationCache(64 * 1024 * 1024),
    logger: observability.createLogger('info', new Writable({ write: (_c, _e, cb) => cb() })),
    metrics: new observability.HubMetrics({
      subscriptionCounts: () => Promise.resolve({ active: SUBSCRIPTIONS, expired: 0, pending: 0 }),
      queueDepth: () => 0,
      inFlight: () => 0,
    }),
    retry: delivery.DEFAULT_RETRY_POLICY,
    maxInFlight: IN_FLIGHT,
    now: Date.now,
    random: Math.random,
  });
  await scheduler.start();
  return async (burst) => {
    const target = delivered + burst.length * SUBSCRIPTIONS;
    for (const n of burst) scheduler.published(n);
    await waitFor(target);
  };
}

function bareArm(): Arm {
  return async (burst) => {
    const target = delivered + burst.length * SUBSCRIPTIONS;
    const queue: StoredNotification[] = [];
    for (const n of burst) for (let s = 0; s < SUBSCRIPTIONS; s++) queue.push(n);
    let next = 0;
    let inFlight = 0;
    const pump = (): void => {
      while (inFlight < IN_FLIGHT && next < queue.length) {
        next++;
        inFlight++;
        void send().then(() => {
          inFlight--;
          pump();
        });
      }
    };
    pump();
    await waitFor(target);
  };
}

const run = arm === 'scheduler' ? await schedulerArm() : arm === 'bare' ? bareArm() : undefined;
if (!run) throw new Error(`unknown arm ${arm}`);
const perDelivery: number[] = [];
for (let b = 0; b < bursts + 2; b++) {
  const burst = Array.from({ length: NOTIFICATIONS }, nextNotification);
  const before = process.cpuUsage();
  await run(burst);
  const used = process.cpuUsage(before);
  if (b >= 2) perDelivery.push((used.user + used.system) / (NOTIFICATIONS * SUBSCRIPTIONS));
}
perDelivery.sort((a, b) => a - b);
process.stdout.write(String(perDelivery[Math.floor(perDelivery.length / 2)]));
process.exit(0);
