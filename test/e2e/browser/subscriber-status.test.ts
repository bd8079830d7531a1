// The subscriber's /status page in a real headless Chromium: behind its statusToken, one card per
// Source, and the lag and position it shows are those of /status.json (the same data as
// `status --json`). Screenshot under test/artifacts/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { request } from 'undici';
import { startSubscriber } from '@rsnotify/subscriber';
import { startSourceSimulator } from '../../src/source-simulator/index.js';
import { waitFor } from '../../src/harness/index.js';
import { isSyncedTo, startE2EHub, subscriberConfig, workspace } from '../subscriber-helpers.js';
import { launchChromium, screenshot, skipWithoutChromium } from './chromium.js';

test(
  'subscriber status page in Chromium shows the lag and position of /status.json',
  { skip: skipWithoutChromium(), timeout: 170_000 },
  async (t) => {
    const ws = await workspace('rsn-status-browser-');
    const hub = await startE2EHub({ dbFile: join(ws.dir, 'hub.db') });
    const sim = await startSourceSimulator({ seed: 21, initialResources: 15 });
    const { token } = await hub.addSource('sim', [sim.topicPrefix]);
    sim.setHub(hub.url, token);
    const statusToken = 'browser-status-token-0123456789';
    const sub = await startSubscriber(subscriberConfig(ws, sim.wellKnownUrl, {}, { statusToken }));
    t.after(async () => {
      await sub.close();
      await sim.close();
      await hub.close();
      await ws.remove();
    });
    const base = `http://127.0.0.1:${sub.port}`;
    const browser = await launchChromium(t);

    const anonymous = await browser.newPage();
    assert.equal(
      (await anonymous.goto(`${base}/status`))?.status(),
      401,
      'no page without the status token',
    );

    const context = await browser.newContext({
      extraHTTPHeaders: { authorization: `Bearer ${statusToken}` },
      viewport: { width: 1100, height: 800 },
    });
    const page = await context.newPage();
    const statusJson = async () => {
      const res = await request(`${base}/status.json`, {
        headers: { authorization: `Bearer ${statusToken}` },
      });
      return (await res.body.json()) as {
        name: string;
        lagMs: number;
        syncedUntil?: string;
        mode: string;
        buffered: number;
      }[];
    };
    const cell = (field: string) =>
      page.textContent(`section[data-source="sim"] tr[data-field="${field}"] td`);

    // While changes flow, the page shows a lag (a whole number of ms) for the Source.
    sim.start(30);
    await waitFor(async () => ((await statusJson())[0]?.syncedUntil ?? '') !== '', {
      what: 'a position',
      timeoutMs: 120_000,
    });
    assert.equal((await page.goto(`${base}/status`))?.status(), 200);
    assert.match((await cell('lagMs'))?.trim() ?? '', /^\d+$/);
    assert.equal((await cell('mode'))?.trim(), 'push');

    // Once the Source pauses and the mirror catches up, page and JSON agree: lag 0 at the same position.
    sim.pause();
    await sim.flush();
    await waitFor(async () => isSyncedTo((await sub.status())[0], sim.lastUntil()), {
      what: 'synced',
      timeoutMs: 120_000,
    });
    const json = (await statusJson())[0]!;
    await page.goto(`${base}/status`);
    assert.equal((await cell('lagMs'))?.trim(), String(json.lagMs));
    assert.equal(json.lagMs, 0);
    assert.equal((await cell('syncedUntil'))?.trim(), json.syncedUntil);
    assert.equal((await cell('buffered'))?.trim(), String(json.buffered));
    assert.equal((await cell('hub'))?.trim(), hub.url);
    assert.equal(
      await page.getAttribute('section[data-source="sim"] tr[data-field="lagMs"] td', 'class'),
      'lag-ok',
    );
    await screenshot(page, 'subscriber-status');
  },
);
