// The SourceRunner as an effect executor, driven without sockets: an in-memory repository, a fake
// mirror, an in-memory Source and a manual clock (runner-fakes.ts). Each test names the behaviour
// (RN-5 ordering, M-7 catch-up and re-baseline, RT-13 renewal, WS-3 re-discovery) it checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  at,
  BASE,
  capabilityListXml,
  changeListXml,
  resourceListXml,
  runnerRig,
  T0,
  type RunnerRig,
} from './runner-fakes.js';
import { parseChangeNotification, parseDateTime } from '@rsnotify/shared';
import {
  EVENTS_PER_COMMIT,
  FAILURE_LINES_PER_RECORD,
  notificationChanges,
  pollRediscoveryIntervalMs,
} from '../src/runner/index.js';

const HUB = 'http://hub.test/hub';

/**
 * A runner on a Source with a channel (push mode) that took its baseline at 10 s (resources a, b),
 * over an open Change List from 5 s.
 */
async function started(options: Parameters<typeof runnerRig>[0] = {}): Promise<RunnerRig> {
  const r = await runnerRig({ hub: HUB, ...options });
  r.source.serve('/resourcelist.xml', resourceListXml(10, ['a', 'b']));
  r.source.serve('/changelist.xml', changeListXml(5, undefined, []));
  r.runner.start();
  await r.runner.idle();
  assert.equal(await r.syncedUntil(), at(10), 'baseline at the Resource List at');
  return r;
}

async function metric(
  r: RunnerRig,
  name: 'catchUps' | 'gaps' | 'baselines' | 'channelChanges',
  labels: Record<string, string> = {},
): Promise<number> {
  const { values } = await r.metrics[name].get();
  return values
    .filter((v) =>
      Object.entries(labels).every(([k, x]) => (v.labels as Record<string, unknown>)[k] === x),
    )
    .reduce((n, v) => n + v.value, 0);
}

/**
 * Opens a gap (10-12): the Change List holds the change to a at 11 that no notification brought and
 * the change to b at 13 that the delivered notification (12-14) brings.
 */
async function deliverAfterGap(r: RunnerRig): Promise<void> {
  r.source.serve(
    '/changelist.xml',
    changeListXml(5, 14, [
      { path: 'a', change: 'updated', s: 11 },
      { path: 'b', change: 'updated', s: 13 },
    ]),
  );
  await r.deliver(12, 14, [{ path: 'b', change: 'updated', s: 13 }]);
}

/** Counts turns of the event loop (setImmediate ticks) from start() until stop(). */
function eventLoopTurns(): { start(): void; stop(): void; readonly turns: number } {
  let turns = 0;
  let counting = false;
  const tick = (): void => {
    if (!counting) return;
    turns++;
    setImmediate(tick);
  };
  return {
    start() {
      counting = true;
      setImmediate(tick);
    },
    stop() {
      counting = false;
    },
    get turns() {
      return turns;
    },
  };
}

test('RN-5: a notification in order is applied and moves syncedUntil to its until', async () => {
  const r = await started();
  const id = await r.deliver(10, 12, [{ path: 'a', change: 'updated', s: 11 }]);
  assert.equal(await r.syncedUntil(), at(12));
  assert.deepEqual(r.mirror.summary().slice(-1), ['updated a']);
  assert.equal(r.repo.inbox.get(id)?.state, 'applied');
  assert.equal((await r.runner.status()).buffered, 0);
});

test('RN-5: a notification out of order waits in the buffer and is released once the gap closes', async () => {
  const r = await started();
  const late = await r.deliver(12, 14, [{ path: 'b', change: 'updated', s: 13 }]);
  assert.equal(await r.syncedUntil(), at(10), 'the position does not jump the gap');
  assert.equal((await r.runner.status()).buffered, 1);
  assert.equal(await metric(r, 'gaps'), 1);
  assert.equal(r.repo.inbox.get(late)?.state, 'new');
  await r.deliver(10, 12, [{ path: 'a', change: 'updated', s: 11 }]);
  assert.equal(await r.syncedUntil(), at(14));
  assert.deepEqual(r.mirror.summary().slice(-2), ['updated a', 'updated b'], 'in order');
  assert.equal(r.repo.inbox.get(late)?.state, 'applied');
  assert.equal(await metric(r, 'catchUps', { result: 'done' }), 0, 'no catch-up was needed');
});

test('M-7: a gap still open after gapTimeout is filled from the Change List, then the buffer is released', async () => {
  const r = await started();
  await deliverAfterGap(r);
  await r.advance(999);
  assert.equal(await r.syncedUntil(), at(10), 'not before gapTimeout (the notification may come)');
  await r.advance(1);
  assert.equal(await r.syncedUntil(), at(14));
  assert.ok(r.mirror.summary().includes('updated a'), 'the missed change came from the list');
  const gap = r.repo.catchUps.find((c) => c.reason === 'gap');
  assert.equal(gap?.state, 'done');
  assert.equal(gap?.from, at(10));
  assert.equal(gap?.to, at(12));
  assert.equal(await metric(r, 'catchUps', { result: 'done' }), 1);
});

test('M-7: a gap catch-up whose change fails is retried; each attempt counts the failure, only the first records it', async () => {
  const r = await started();
  const down = `${BASE}/r/a`;
  r.mirror.failing.add(down);
  await deliverAfterGap(r);
  const gapAttempts = () => r.repo.catchUps.filter((c) => c.reason === 'gap');
  for (let i = 0; i < 60 && gapAttempts().length < 3; i++) await r.advance(1_000);
  assert.ok(gapAttempts().length >= 3, `the catch-up was retried (${gapAttempts().length})`);
  assert.equal(await r.syncedUntil(), at(10), 'the position holds (promise 3)');
  const failedEvents = r.repo.events.filter((e) => e.uri === down && e.outcome === 'failed');
  assert.equal(failedEvents.length, 1, 'one event for the same failure at every attempt');
  const { values } = await r.metrics.changesApplied.get();
  const counted = values.find((v) => v.labels.outcome === 'failed')?.value ?? 0;
  assert.ok(counted >= 3, `the metric counts every attempt (${counted})`);
  r.mirror.failing.clear();
  for (let i = 0; i < 120 && (await r.syncedUntil()) !== at(14); i++) await r.advance(1_000);
  assert.equal(await r.syncedUntil(), at(14));
});

test('M-7/RC-22: when the Change List no longer reaches the position, the runner re-baselines', async () => {
  const r = await started();
  r.source.serve(
    '/changelist.xml',
    changeListXml(11, 30, [{ path: 'c', change: 'created', s: 12 }]),
  );
  r.source.serve('/resourcelist.xml', resourceListXml(20, ['a', 'b', 'c']));
  const id = await r.deliver(12, 14, [{ path: 'b', change: 'updated', s: 13 }]);
  await r.advance(1_000);
  assert.equal(await r.syncedUntil(), at(20), 'the new baseline is the position');
  const gone = r.events('catchup.history_gone');
  assert.equal(gone.length, 1);
  assert.equal(gone[0]!.why, 'from-after-position');
  assert.equal(await metric(r, 'baselines', { result: 'done' }), 2, 'initial and history-gone');
  assert.equal(r.repo.inbox.get(id)?.state, 'superseded', 'covered by the new baseline');
  assert.ok(r.mirror.files.has('http://src.test/r/c'), 'the re-baseline brought c');
});

test('RT-13/WS-3: the lease is renewed at 80% of it, after a fresh discovery, and the old one dropped', async () => {
  const r = await started({ withSubscription: true, hub: HUB, leaseSeconds: 100 });
  const capabilityGets = () =>
    r.source.gets.filter((u) => u.endsWith('/capabilitylist.xml')).length;
  assert.deepEqual(r.hub.kinds(), ['subscribe:initial']);
  assert.equal(capabilityGets(), 1);
  await r.advance(79_999);
  assert.deepEqual(r.hub.kinds(), ['subscribe:initial'], 'nothing before renewAt');
  assert.equal(capabilityGets(), 1);
  await r.advance(1);
  assert.deepEqual(r.hub.kinds(), ['subscribe:initial', 'subscribe:renew', 'unsubscribe:renewed']);
  assert.equal(r.hub.actions[1]!.at, T0 + 80_000, 'renewed exactly at renewAt');
  assert.equal(capabilityGets(), 2, 'discovery ran again before the renewal (WS-3)');
});

test('WS-3: a channel dropped from the Capability List moves the Source to polling, and back when it returns', async () => {
  const r = await started({ withSubscription: true, hub: HUB, leaseSeconds: 100 });
  const polls = () => r.repo.catchUps.filter((c) => c.reason === 'poll').length;
  r.source.serve('/capabilitylist.xml', capabilityListXml(undefined));
  await r.advance(80_000); // the renewal's re-discovery finds no channel
  assert.equal((await r.runner.status()).mode, 'poll');
  const dropped = r.events('channel.dropped');
  assert.equal(dropped.length, 1, 'one event');
  assert.equal(dropped[0]!.reason, 'not-advertised');
  assert.equal(dropped[0]!.hub, HUB);
  assert.equal(await metric(r, 'channelChanges', { change: 'dropped' }), 1);
  assert.deepEqual(
    r.hub.kinds().slice(1),
    ['unsubscribe:channel-removed'],
    'no renewal, unsubscribed',
  );
  assert.equal(
    polls(),
    1,
    'a catch-up at once: notifications may have stopped before the drop was seen',
  );
  await r.advance(10_000);
  assert.equal(polls(), 2, 'then every pollInterval');

  r.source.serve('/capabilitylist.xml', capabilityListXml(HUB));
  await r.advance(pollRediscoveryIntervalMs(10_000));
  assert.equal((await r.runner.status()).mode, 'push');
  assert.equal(r.events('channel.restored').length, 1);
  assert.equal(await metric(r, 'channelChanges', { change: 'restored' }), 1);
  assert.equal(r.hub.kinds().at(-1), 'subscribe:initial', 'subscribed again');
  assert.ok(
    r.repo.catchUps.some((c) => c.reason === 'startup' && c.startedAt > T0 + 80_000),
    'the new verification triggers a catch-up (M-7)',
  );
  const pollsWhenRestored = polls();
  await r.advance(60_000);
  assert.equal(polls(), pollsWhenRestored, 'polling stopped');
  assert.equal(r.events('channel.dropped').length, 1, 'still one drop event');
});

test('a notification whose change fails is retried and holds the position until it applies (promise 3)', async () => {
  const r = await started();
  r.mirror.failing.add('http://src.test/r/a');
  await r.deliver(10, 12, [{ path: 'a', change: 'updated', s: 11 }]);
  assert.equal(await r.syncedUntil(), at(10));
  assert.equal(r.events('apply.failed').length, 1);
  r.mirror.failing.clear();
  await r.advance(1_000);
  assert.equal(await r.syncedUntil(), at(12));
});

test('a notification of many changes: its results are gone through a slice per turn, its events recorded in commits of at most EVENTS_PER_COMMIT, all of them', async () => {
  const r = await started();
  // Turns of the event loop from the end of the apply to the first events commit.
  const loop = eventLoopTurns();
  let turnsBeforeFirstCommit: number | undefined;
  const apply = r.mirror.apply.bind(r.mirror);
  r.mirror.apply = async (changes) => {
    const results = await apply(changes);
    loop.start();
    return results;
  };
  const commits: number[] = [];
  const addEvents = r.repo.addEvents.bind(r.repo);
  r.repo.addEvents = (sourceId, events) => {
    turnsBeforeFirstCommit ??= loop.turns;
    commits.push(events.length);
    return addEvents(sourceId, events);
  };
  const n = 2 * EVENTS_PER_COMMIT + 5;
  const entries = Array.from({ length: n }, (_, i) => ({
    path: `many/${i}`,
    change: 'deleted' as const,
    s: 11,
  }));
  await r.deliver(10, 12, entries);
  loop.stop();
  assert.equal(await r.syncedUntil(), at(12));
  assert.ok(
    (turnsBeforeFirstCommit ?? 0) >= 2,
    `the event loop turned while the results were gone through (${turnsBeforeFirstCommit})`,
  );
  assert.deepEqual(commits, [EVENTS_PER_COMMIT, EVENTS_PER_COMMIT, 5]);
  const recorded = r.repo.events.filter((e) => e.uri.startsWith(`${BASE}/r/many/`));
  assert.equal(recorded.length, n, 'one event per change');
  assert.equal(new Set(recorded.map((e) => e.uri)).size, n, 'each change once');
  const { values } = await r.metrics.changesApplied.get();
  const deleted = values.find((v) => v.labels.outcome === 'deleted')?.value ?? 0;
  assert.ok(deleted >= n, `every change counted in the metric (${deleted})`);
});

test('a notification of many failing changes: a log line for each of the first FAILURE_LINES_PER_RECORD, one line counting the rest, every one recorded; a retry counts the same failures again but records and logs only what changed', async () => {
  const r = await started();
  const n = FAILURE_LINES_PER_RECORD + 13;
  const entries = Array.from({ length: n }, (_, i) => ({
    path: `down/${i}`,
    change: 'updated' as const,
    s: 11,
  }));
  for (const e of entries) r.mirror.failing.add(`${BASE}/r/${e.path}`);
  await r.deliver(10, 12, entries);
  assert.equal(await r.syncedUntil(), at(10), 'the position holds (promise 3)');
  const perChange = () => r.events('mirror.apply_failed');
  const summaries = () => r.events('mirror.failures_unlogged');
  assert.equal(perChange().length, FAILURE_LINES_PER_RECORD);
  assert.equal(summaries().length, 1);
  const { logged, unlogged, byEvent } = summaries()[0]!;
  assert.deepEqual(
    { logged, unlogged, byEvent },
    { logged: FAILURE_LINES_PER_RECORD, unlogged: 13, byEvent: { 'mirror.apply_failed': 13 } },
  );
  const failedEvents = () =>
    r.repo.events.filter((e) => e.uri.startsWith(`${BASE}/r/down/`) && e.outcome === 'failed');
  assert.equal(failedEvents().length, n, 'the events table holds every failure');
  const failedMetric = async () =>
    (await r.metrics.changesApplied.get()).values.find((v) => v.labels.outcome === 'failed')
      ?.value ?? 0;
  assert.equal(await failedMetric(), n, 'the metric counts every failure');

  const attempts = () => r.events('apply.failed');
  assert.deepEqual(
    attempts().map(({ failed, repeated }) => ({ failed, repeated })),
    [{ failed: n, repeated: 0 }],
  );

  await r.advance(1_000); // the retry: the same failures, counted, not recorded or logged again
  assert.equal(await r.syncedUntil(), at(10), 'the position still holds');
  assert.deepEqual(
    attempts().map(({ failed, repeated }) => ({ failed, repeated })),
    [
      { failed: n, repeated: 0 },
      { failed: n, repeated: n },
    ],
  );
  assert.equal(perChange().length, FAILURE_LINES_PER_RECORD, 'no line per repeated failure');
  assert.equal(summaries().length, 1);
  assert.equal(failedEvents().length, n, 'no event per repeated failure');
  assert.equal(await failedMetric(), 2 * n, 'the metric counts every attempt');

  // One change applies at the next attempt, then fails again at the one after: news each time.
  const first = `${BASE}/r/${entries[0]!.path}`;
  r.mirror.failing.delete(first);
  await r.advance(2_000);
  assert.equal(attempts().at(-1)?.repeated, n - 1);
  r.mirror.failing.add(first);
  await r.advance(4_000);
  assert.equal(attempts().at(-1)?.repeated, n - 1, 'the failure after a success is recorded');
  assert.equal(failedEvents().length, n + 1);
  assert.deepEqual(
    perChange()
      .slice(FAILURE_LINES_PER_RECORD)
      .map((e) => e.uri),
    [first],
    'and logged',
  );

  r.mirror.failing.clear();
  await r.advance(8_000);
  assert.equal(await r.syncedUntil(), at(12));
  assert.equal(attempts().length, 4, 'no attempt fails once the changes apply');
});

test('a failure recorded for one notification is recorded again when the next one fails (the first applied: the memory starts over)', async () => {
  const r = await started();
  const down = `${BASE}/r/a`;
  r.mirror.failing.add(down);
  await r.deliver(10, 12, [{ path: 'a', change: 'updated', s: 11 }]);
  await r.advance(1_000);
  const failedEvents = () => r.repo.events.filter((e) => e.uri === down && e.outcome === 'failed');
  assert.equal(failedEvents().length, 1, 'two attempts, one event');
  r.mirror.failing.clear();
  await r.advance(2_000);
  assert.equal(await r.syncedUntil(), at(12));
  r.mirror.failing.add(down);
  await r.deliver(12, 14, [{ path: 'a', change: 'updated', s: 13 }]);
  assert.equal(failedEvents().length, 2, 'the next notification failing records its failure');
  assert.equal(await r.syncedUntil(), at(12));
});

test("RC-23: a notification's entries become its changes a slice per turn of the event loop, all of them, in order, after the overlap only those past `after`", async () => {
  const n = 3 * EVENTS_PER_COMMIT + 1;
  const body = Buffer.from(
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">' +
      `<rs:md capability="change-notification" from="${at(0)}" until="${at(10)}"/>` +
      Array.from(
        { length: n },
        (_, i) =>
          `<url><loc>http://src.test/r/${i}</loc><rs:md change="updated" datetime="${at(i < n / 2 ? 2 : 8)}"/></url>`,
      ).join('') +
      '</urlset>',
  );
  const notification = parseChangeNotification(body);
  const loop = eventLoopTurns();
  loop.start();
  const all = await notificationChanges(notification, undefined);
  loop.stop();
  assert.ok(
    loop.turns >= 3,
    `the event loop turned while the entries were gone through (${loop.turns})`,
  );
  assert.deepEqual(
    all.map((c) => c.uri),
    Array.from({ length: n }, (_, i) => `http://src.test/r/${i}`),
  );
  // After an overlap up to 5 s (RC-23): the changes at 8 s only.
  const past = await notificationChanges(notification, parseDateTime(at(5)));
  assert.equal(past.length, n - Math.ceil(n / 2));
  assert.ok(past.every((c) => c.time?.lexical === at(8)));
});
