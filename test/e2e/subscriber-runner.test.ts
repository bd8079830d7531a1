// The runner end to end with the real hub, the real subscriber daemon and the simulated Source:
// a Source that drops its notification channel and restores it (WS-3: re-discovery before each
// renewal, polling mode meanwhile), and the catch-up counters of `status --json`, /status.json,
// /metrics and the log agreeing after gaps and catch-ups.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { startSubscriber, type RunningSubscriber } from '@rsnotify/subscriber';
import { startSourceSimulator, type SourceSimulator } from '../src/source-simulator/index.js';
import { waitFor } from '../src/harness/index.js';
import { captureLog, CATCH_UP_END_EVENTS, type CapturedLog } from './subscriber-log-capture.js';
import {
  diffMirror,
  isSyncedTo,
  mirrorEquals,
  runSubscriberCli,
  startE2EHub,
  subscriberConfig,
  syncState,
  workspace,
  type Workspace,
  writeConfigFile,
} from './subscriber-helpers.js';

interface Rig {
  ws: Workspace;
  sim: SourceSimulator;
  sub: RunningSubscriber;
  log: CapturedLog;
  configFile: string;
}

async function rig(
  t: { after: (fn: () => Promise<void>) => void },
  seed: number,
  source: Parameters<typeof subscriberConfig>[2],
): Promise<Rig> {
  const ws = await workspace('rsn-runner-');
  const hub = await startE2EHub({ dbFile: join(ws.dir, 'hub.db') });
  const sim = await startSourceSimulator({ seed, initialResources: 15 });
  const { token } = await hub.addSource('sim', [sim.topicPrefix]);
  sim.setHub(hub.url, token);
  const log = captureLog();
  const cfg = subscriberConfig(ws, sim.wellKnownUrl, source);
  const configFile = await writeConfigFile(ws, cfg);
  const sub = await startSubscriber(cfg, { logger: log.logger });
  t.after(async () => {
    await sub.close();
    await sim.close();
    await hub.close();
    await ws.remove();
  });
  await waitFor(
    async () => {
      const s = (await sub.status())[0];
      return s?.subscriptionState === 'active' && s.syncedUntil;
    },
    { what: 'subscribed and baselined' },
  );
  return { ws, sim, sub, log, configFile };
}

/** The mirror is byte-identical to the Source and the position has reached its last change. */
async function converged(r: Rig, what: string): Promise<void> {
  await r.sim.flush();
  await waitFor(
    async () =>
      (await mirrorEquals(r.ws.mirrorDir, r.sim.snapshot())) &&
      isSyncedTo((await r.sub.status())[0], r.sim.lastUntil()),
    { timeoutMs: 60_000, what },
  ).catch(async (err: Error) => {
    const d = await diffMirror(r.ws.mirrorDir, r.sim.snapshot());
    throw new Error(
      `${err.message}; status ${JSON.stringify(await r.sub.status())}; missing=${d.missing.length} different=${d.different.length} extra=${d.extra.length}`,
    );
  });
}

async function metricsText(r: Rig): Promise<string> {
  const res = await request(`http://127.0.0.1:${r.sub.port}/metrics`);
  return res.body.text();
}

/** Sum of a counter's samples for the source `sim`, optionally with one more label. */
function counter(text: string, name: string, label?: [string, string]): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) || !line.includes('source="sim"')) continue;
    if (label && !line.includes(`${label[0]}="${label[1]}"`)) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

test('WS-3: a Source that drops its channel is polled, and pushed again when the channel returns; the mirror stays byte-identical', async (t) => {
  // Lease 2 s: renewals (each after a fresh discovery) come every 1.6 s; polling re-discovers every 3 s.
  const r = await rig(t, 41, { leaseSeconds: 2, pollInterval: '300ms' });
  for (let i = 0; i < 3; i++) await r.sim.changeBatch(4);
  await converged(r, 'push: mirror equals the Source');

  r.sim.faults.dropChannel = 1;
  await waitFor(async () => (await r.sub.status())[0]?.mode === 'poll', {
    what: 'polling mode after the next renewal',
  });
  for (let i = 0; i < 3; i++) await r.sim.changeBatch(4);
  await converged(r, 'polling: mirror equals the Source');
  const dropped = r.log.events('channel.dropped');
  assert.equal(dropped.length, 1, 'one event for the drop');
  assert.equal(dropped[0]!.reason, 'not-advertised');
  assert.ok(
    r.log.events('catchup.completed').some((e) => e.reason === 'poll'),
    'caught up by polling',
  );
  assert.equal(
    counter(await metricsText(r), 'rsnotify_subscriber_channel_changes_total', [
      'change',
      'dropped',
    ]),
    1,
  );

  r.sim.faults.dropChannel = 0;
  await waitFor(
    async () => {
      const s = (await r.sub.status())[0];
      return s?.mode === 'push' && s.subscriptionState === 'active';
    },
    { what: 'push mode and an active subscription again' },
  );
  const received = counter(await metricsText(r), 'rsnotify_subscriber_deliveries_received_total');
  for (let i = 0; i < 3; i++) await r.sim.changeBatch(4);
  await converged(r, 'push again: mirror equals the Source');
  await waitFor(
    async () =>
      counter(await metricsText(r), 'rsnotify_subscriber_deliveries_received_total') > received,
    { what: 'notifications delivered through the hub again' },
  );
  assert.equal(r.log.events('channel.restored').length, 1);
  assert.equal(r.log.events('channel.dropped').length, 1);
  assert.equal(
    counter(await metricsText(r), 'rsnotify_subscriber_channel_changes_total', [
      'change',
      'restored',
    ]),
    1,
  );
});

test('catch-up counters agree: status --json, /status.json, /metrics and the log count the same catch-ups', async (t) => {
  const r = await rig(t, 43, {});
  // Lost notifications open gaps that only a catch-up from the Change Lists closes (M-7).
  for (let i = 0; i < 4; i++) {
    r.sim.faults.dropNext = 1;
    await r.sim.changeBatch(3);
    await r.sim.changeBatch(3);
    await r.sim.flush();
    await waitFor(async () => isSyncedTo((await r.sub.status())[0], r.sim.lastUntil()), {
      what: `gap ${i + 1} closed`,
      timeoutMs: 60_000,
      describe: syncState(() => r.sub.status(), r.sim),
    });
  }
  await converged(r, 'mirror equals the Source after the gaps');

  const figures = async () => {
    const cli = await runSubscriberCli(['status', '--config', r.configFile, '--json']);
    const served = (await (
      await request(`http://127.0.0.1:${r.sub.port}/status.json`)
    ).body.json()) as {
      catchUps: number;
    }[];
    const text = await metricsText(r);
    return {
      statusJson: (
        JSON.parse(
          cli.out
            .split('\n')
            .filter((l) => !l.startsWith('{"'))
            .join('\n'),
        ) as { catchUps: number }[]
      )[0]!.catchUps,
      statusPage: served[0]!.catchUps,
      metrics: counter(text, 'rsnotify_subscriber_catchups_total'),
      log: r.log.events(...CATCH_UP_END_EVENTS).length,
      gapsMetric: counter(text, 'rsnotify_subscriber_gaps_total'),
      gapsLog: r.log.events('ordering.gap_detected').length,
    };
  };
  // The figures are read from three places at slightly different moments: wait for one reading in
  // which nothing is in flight, then require them equal.
  const f = await waitFor(
    async () => {
      const x = await figures();
      return x.statusJson === x.metrics && x.statusPage === x.metrics && x.log === x.metrics
        ? x
        : undefined;
    },
    { what: 'the catch-up figures to agree', timeoutMs: 30_000 },
  ).catch(async (err: Error) => {
    throw new Error(`${err.message}: ${JSON.stringify(await figures())}`);
  });
  assert.ok(
    r.log.events(...CATCH_UP_END_EVENTS).filter((e) => e.reason === 'gap').length >= 1,
    'gaps were closed by catch-ups',
  );
  assert.ok(
    f.metrics >= 3,
    `baseline catch-up, the one after the verification and the gaps: ${JSON.stringify(f)}`,
  );
  assert.equal(f.gapsMetric, f.gapsLog, 'gaps: metric and log agree');
  assert.ok(f.gapsMetric >= 1);
});

test('a notification whose change fails while its Source is down is retried; the events table records the failure once, the log and metric count every attempt, and the change applies once the Source is back', async (t) => {
  const r = await rig(t, 47, {});
  Object.assign(r.sim.faults, { serverErrorScope: 'resources', serverErrorProbability: 1 });
  await r.sim.makeChanges([
    { path: 'outage/a.txt', change: 'created', bytes: 'during the outage' },
  ]);
  await r.sim.flush();
  await waitFor(() => r.log.events('apply.failed').length >= 3, {
    what: 'three attempts of the notification failed',
    timeoutMs: 60_000,
  });
  const attempts = r.log
    .events('apply.failed')
    .map(({ failed, repeated }) => ({ failed, repeated }));
  // The first attempt records the failure, unless a catch-up (the channel's settling reads of the
  // Change List) met the same change first and recorded it: every later attempt is a repeat.
  assert.ok(
    attempts.every((a) => a.failed === 1),
    JSON.stringify(attempts),
  );
  assert.deepEqual(
    attempts.slice(1).map((a) => a.repeated),
    attempts.slice(1).map(() => 1),
  );
  const uri = `${r.sim.baseUrl}/resources/outage/a.txt`;
  const failedRows = (): unknown[] => {
    const db = new Database(join(r.ws.dataDir, 'subscriber.db'), { readonly: true });
    try {
      return db
        .prepare("SELECT error_code FROM events WHERE uri = ? AND outcome = 'failed'")
        .all(uri);
    } finally {
      db.close();
    }
  };
  assert.deepEqual(failedRows(), [{ error_code: 'RSN_HTTP_STATUS' }], 'one event row');
  assert.equal(
    r.log.events('mirror.apply_failed').filter((e) => e.uri === uri).length,
    1,
    'one log line for the failed change',
  );
  assert.ok(
    counter(await metricsText(r), 'rsnotify_subscriber_changes_total', ['outcome', 'failed']) >= 3,
    'the metric counts every attempt',
  );

  Object.assign(r.sim.faults, { serverErrorProbability: 0 });
  await converged(r, 'mirror equals the Source once it is back');
  assert.deepEqual(failedRows(), [{ error_code: 'RSN_HTTP_STATUS' }], 'still one event row');
});
