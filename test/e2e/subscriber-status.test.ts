// The subscriber's status page over HTTP: /status.json is the same data as `status --json`, the
// optional statusToken guards every status route, and statusListen moves them to their own address.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { request } from 'undici';
import { readStatus, startSubscriber } from '@rsnotify/subscriber';
import { startSourceSimulator } from '../src/source-simulator/index.js';
import { waitFor } from '../src/harness/index.js';
import { captureLog } from './subscriber-log-capture.js';
import {
  isSyncedTo,
  startE2EHub,
  subscriberConfig,
  syncState,
  workspace,
} from './subscriber-helpers.js';

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await request(url, { headers });
  return { status: res.statusCode, text: await res.body.text(), headers: res.headers };
}

test('/status.json equals status --json; statusToken guards /status; statusListen serves it apart', async (t) => {
  const ws = await workspace('rsn-status-');
  const hub = await startE2EHub({ dbFile: join(ws.dir, 'hub.db') });
  const sim = await startSourceSimulator({ seed: 11, initialResources: 10 });
  const { token } = await hub.addSource('sim', [sim.topicPrefix]);
  sim.setHub(hub.url, token);
  const statusToken = 'status-token-abcdefghijklmnop';
  const cfg = subscriberConfig(
    ws,
    sim.wellKnownUrl,
    {},
    { statusToken, statusListen: { host: '127.0.0.1', port: 0 } },
  );
  const log = captureLog();
  const sub = await startSubscriber(cfg, { logger: log.logger });
  t.after(async () => {
    await sub.close();
    await sim.close();
    await hub.close();
    await ws.remove();
  });
  assert.ok(sub.statusPort !== undefined && sub.statusPort !== sub.port, 'a separate status port');
  const statusBase = `http://127.0.0.1:${sub.statusPort}`;
  const auth = { authorization: `Bearer ${statusToken}` };

  sim.start(20);
  await waitFor(async () => ((await sub.status())[0]?.changesApplied ?? 0) > 0, {
    what: 'changes applied',
    timeoutMs: 60_000,
  });
  sim.pause();
  await sim.flush();
  await waitFor(async () => isSyncedTo((await sub.status())[0], sim.lastUntil()), {
    what: 'synced',
    timeoutMs: 60_000,
    describe: syncState(() => sub.status(), sim),
  });
  // Deliveries stored while the position was being established are replayed after it: wait until
  // none is open, so the two reads below see one state.
  await waitFor(async () => (await sub.status())[0]?.buffered === 0, {
    what: 'nothing buffered',
    timeoutMs: 60_000,
  });
  // After the activation the lists are read again until they prove the position past it (M-7):
  // wait for that to end too, so that no catch-up runs between the two reads.
  await waitFor(
    () =>
      log.events('subscription.activation_settled', 'subscription.activation_unproven').length > 0,
    { what: 'the activation settled', timeoutMs: 60_000 },
  );

  for (const path of ['/status', '/status.json', '/status.css']) {
    assert.equal((await get(`${statusBase}${path}`)).status, 401, `${path} without the token`);
    assert.equal(
      (await get(`${statusBase}${path}`, { authorization: 'Bearer wrong-token-wrong-token' }))
        .status,
      401,
      `${path} with a wrong token`,
    );
    assert.equal(
      (await get(`http://127.0.0.1:${sub.port}${path}`, auth)).status,
      404,
      `${path} is not on the callback address`,
    );
  }
  const json = await get(`${statusBase}/status.json`, auth);
  assert.equal(json.status, 200);
  const served = JSON.parse(json.text) as Record<string, unknown>[];
  const fromCli = await readStatus(cfg);
  // The daemon's live figures and the CLI's store read agree once nothing is moving.
  assert.deepEqual(
    served.map((s) => ({ ...s, lastError: undefined })),
    fromCli.map((s) => ({ ...s, lastError: undefined })),
  );
  assert.equal(served[0]!.mode, 'push');
  assert.equal(served[0]!.hub, hub.url);
  assert.equal(served[0]!.lagMs, 0);
  const html = await get(`${statusBase}/status`, auth);
  assert.equal(html.status, 200);
  assert.match(String(html.headers['content-security-policy']), /default-src 'none'/);
  assert.ok(html.text.includes(String(served[0]!.syncedUntil)));
});

test('without statusListen the status routes share the listen address; without statusToken they are open', async (t) => {
  const ws = await workspace('rsn-status-open-');
  const sim = await startSourceSimulator({ seed: 12, initialResources: 3 });
  const sub = await startSubscriber(subscriberConfig(ws, sim.wellKnownUrl, { pollInterval: '1s' }));
  t.after(async () => {
    await sub.close();
    await sim.close();
    await ws.remove();
  });
  assert.equal(sub.statusPort, undefined);
  const r = await get(`http://127.0.0.1:${sub.port}/status.json`);
  assert.equal(r.status, 200);
  assert.equal((JSON.parse(r.text) as { name: string }[])[0]!.name, 'sim');
  assert.equal((await get(`http://127.0.0.1:${sub.port}/status`)).status, 200);
});
