// End to end with the real hub, the simulated Source and the subscriber daemon on loopback: the
// stream in order, reordered, duplicated, dropped (repaired by catch-up, M-7) and with the Change
// List lagging behind the notifications. Each test ends with the mirror equal to the Source, byte
// for byte, and the position at the Source's last `until`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { waitFor } from '../src/harness/index.js';
import {
  diffMirror,
  isSyncedTo,
  mirrorEquals,
  startLiveRig,
  type LiveRig,
} from './subscriber-helpers.js';

type Rig = LiveRig;

const rig = (t: { after: (fn: () => Promise<void>) => void }): Promise<Rig> =>
  startLiveRig(t, {
    prefix: 'rsn-stream-',
    seed: 11,
    initialResources: 30,
    source: { gapTimeout: '300ms' },
  });

async function converged(r: Rig, what: string, timeoutMs = 30_000): Promise<void> {
  await r.sim.flush();
  await waitFor(
    async () =>
      isSyncedTo((await r.sub.status())[0], r.sim.lastUntil()) &&
      (await mirrorEquals(r.mirrorDir, r.sim.snapshot())),
    { timeoutMs, what },
  ).catch(async (err) => {
    const d = await diffMirror(r.mirrorDir, r.sim.snapshot());
    throw new Error(
      `${(err as Error).message}; status ${JSON.stringify(await r.sub.status())}; lastUntil ${r.sim.lastUntil()}; missing=${d.missing.length} different=${d.different.length} extra=${d.extra.length}`,
    );
  });
}

test('RN-5: an in-order stream is applied as it comes', async (t) => {
  const r = await rig(t);
  const appliedBefore = (await r.sub.status())[0]!.changesApplied;
  let made = 0;
  for (let i = 0; i < 20; i++) {
    await r.sim.changeBatch(1 + (i % 4));
    made += 1 + (i % 4);
  }
  await converged(r, 'in-order stream mirrored');
  const s = (await r.sub.status())[0]!;
  assert.equal(s.errors, 0);
  // Changes to one URI in one batch may collapse into one fetch, so at most `made` are counted.
  const applied = s.changesApplied - appliedBefore;
  assert.ok(
    applied > 0 && applied <= made,
    `changesApplied counts the files written or removed (${applied} of ${made} changes)`,
  );
});

test('M-7: reordered and duplicated notifications are ordered by from/until and deduplicated', async (t) => {
  const r = await rig(t);
  Object.assign(r.sim.faults, { reorderProbability: 0.5, duplicateProbability: 0.5 });
  for (let i = 0; i < 30; i++) await r.sim.changeBatch(2);
  await converged(r, 'reordered/duplicated stream mirrored');
});

// The dropped notifications never reach the subscriber, so their changes can only come from the
// Change Lists. Which catch-up brings them depends on timing: the start-up catch-up (baseline `at`
// to the end of the Change List) may still be running when the batches are made and then covers
// the dropped ones itself, before any gap is seen. So the test asserts the outcome (the drops
// happened, and the mirror and position still reached the Source's last `until`), not the path.
test('M-7: a dropped notification is repaired by catch-up from the Change Lists', async (t) => {
  const r = await rig(t);
  const droppedBefore = r.sim.stats().notifications.dropped;
  await r.sim.changeBatch(2);
  r.sim.faults.dropNext = 2;
  await r.sim.changeBatch(3);
  await r.sim.changeBatch(3);
  await r.sim.changeBatch(2); // arrives with a gap before it
  await converged(r, 'drop repaired');
  assert.equal(
    r.sim.stats().notifications.dropped - droppedBefore,
    2,
    'two notifications were dropped',
  );
});

test('M-7: a Change List lagging behind the notifications is retried until it covers the gap', async (t) => {
  const r = await rig(t);
  Object.assign(r.sim.faults, { changeListLagMs: 2_000 });
  r.sim.faults.dropNext = 1;
  await r.sim.changeBatch(3);
  await r.sim.changeBatch(2);
  await converged(r, 'lagging Change List eventually covers the gap');
});

// A hub may deliver faster than the mirror applies (here the Source's resources answer slowly, so
// each apply waits for its GETs). With queuedDeliveryBytes at 1, every delivery that arrives while
// another waits in memory waits in the inbox alone and is read back from it (inbox-feed.ts). The
// read-back must keep the order the rows were committed in: a row fed out of order would open a
// gap, so the test asserts none opened, besides the mirror reaching the Source.
test('deliveries beyond queuedDeliveryBytes wait in the inbox alone and are read back in order; the mirror converges with no gap', async (t) => {
  const r = await startLiveRig(t, {
    prefix: 'rsn-read-back-',
    seed: 12,
    initialResources: 30,
    source: { gapTimeout: '300ms', queuedDeliveryBytes: 1 },
  });
  const before = (await r.sub.status())[0]!;
  Object.assign(r.sim.faults, { serverErrorScope: 'resources', slowProbability: 1, slowMs: 40 });
  for (let i = 0; i < 25; i++) await r.sim.changeBatch(2);
  await converged(r, 'the burst read back from the inbox and mirrored', 60_000);
  const s = (await r.sub.status())[0]!;
  const metrics = await (await request(`http://127.0.0.1:${r.sub.port}/metrics`)).body.text();
  const readBack = metrics
    .split('\n')
    .filter((l) => l.startsWith('rsnotify_subscriber_deliveries_read_back_total{'))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  assert.ok(readBack > 0, `some deliveries were read back from the inbox (${readBack})`);
  assert.equal(s.gaps - before.gaps, 0, 'no gap: the rows were fed in the order they came');
  assert.equal(s.errors, 0);
  assert.equal(s.buffered, 0);
});

// A notification over one inbox part (512 KiB): the subscriber keeps its body in inbox_parts, a
// statement each, before the row that names them (subscriber/src/store/sqlite/inbox.ts), and the
// row's later state updates leave the parts alone. Through the real hub, end to end.
test('a notification over 512 KiB is stored in parts that hold it whole, and the mirror converges', async (t) => {
  const r = await startLiveRig(t, {
    prefix: 'rsn-large-',
    seed: 13,
    initialResources: 30,
    source: { gapTimeout: '300ms' },
    maxEntriesPerNotification: 5_000,
  });
  const before = (await r.sub.status())[0]!;
  await r.sim.changeBatch(4_000);
  await converged(r, 'the large notification mirrored', 60_000);
  const s = (await r.sub.status())[0]!;
  assert.equal(s.errors, 0);
  assert.equal(s.gaps - before.gaps, 0, 'no gap opened');
  const db = new Database(join(r.ws.dataDir, 'subscriber.db'), { readonly: true });
  try {
    const rows = db
      .prepare(
        'SELECT state, length(body) AS inline, payload_id AS payloadId FROM inbox WHERE payload_id IS NOT NULL',
      )
      .all() as { state: string; inline: number; payloadId: number }[];
    assert.equal(rows.length, 1, 'one delivery stored in parts');
    // Applied from the delivery, or covered first by the catch-up that follows the baseline (which
    // of the two depends on timing; both finish the row).
    assert.ok(['applied', 'superseded'].includes(rows[0]!.state), rows[0]!.state);
    assert.equal(rows[0]!.inline, 0, 'the row itself holds no body');
    const parts = db
      .prepare('SELECT bytes FROM inbox_parts WHERE payload_id = ? ORDER BY part')
      .pluck()
      .all(rows[0]!.payloadId) as Buffer[];
    const body = Buffer.concat(parts).toString('utf8');
    assert.ok(
      parts.length >= 2 && body.length > 512 * 1024,
      `${body.length} bytes in ${parts.length} parts`,
    );
    assert.match(body, /capability="change-notification"/);
    assert.equal(body.match(/<url>/g)?.length, 4_000, 'every entry of the notification');
    assert.match(body, /<\/urlset>\s*$/, 'to its end');
  } finally {
    db.close();
  }
});
