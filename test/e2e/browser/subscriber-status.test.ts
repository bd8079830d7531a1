// The subscriber's /status page in a real headless Chromium: a person logs in with the statusToken
// through the page's form (a wrong token is refused and never shown; the session cookie is HttpOnly
// and SameSite=Strict), then reads one card per Source whose lag, position, gaps (count and the last
// gap) and last reconciliation are those of /status.json (the same data as `status --json`), read
// from the rendered text. Screenshots under test/artifacts/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { request } from 'undici';
import { startSubscriber, type SourceStatus } from '@rsnotify/subscriber';
import { startSourceSimulator } from '../../src/source-simulator/index.js';
import { waitFor } from '../../src/harness/index.js';
import {
  isSyncedTo,
  startE2EHub,
  subscriberConfig,
  syncState,
  workspace,
} from '../subscriber-helpers.js';
import { launchChromium, screenshot, skipWithoutChromium } from './chromium.js';

test(
  'subscriber status page in Chromium: login with the status token, then lag, position, gaps and reconciliation of /status.json',
  { skip: skipWithoutChromium(), timeout: 240_000 },
  async (t) => {
    const ws = await workspace('rsn-status-browser-');
    const hub = await startE2EHub({ dbFile: join(ws.dir, 'hub.db') });
    const sim = await startSourceSimulator({ seed: 21, initialResources: 15 });
    const { token } = await hub.addSource('sim', [sim.topicPrefix]);
    sim.setHub(hub.url, token);
    const statusToken = 'browser-status-token-0123456789';
    const sub = await startSubscriber(
      subscriberConfig(ws, sim.wellKnownUrl, { reconcileInterval: '3s' }, { statusToken }),
    );
    t.after(async () => {
      await sub.close();
      await sim.close();
      await hub.close();
      await ws.remove();
    });
    const base = `http://127.0.0.1:${sub.port}`;
    const browser = await launchChromium(t);
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    const statusJson = async (): Promise<SourceStatus> => {
      const res = await request(`${base}/status.json`, {
        headers: { authorization: `Bearer ${statusToken}` },
      });
      return ((await res.body.json()) as SourceStatus[])[0]!;
    };
    const cell = async (field: string): Promise<string> =>
      (await page.innerText(`section[data-source="sim"] tr[data-field="${field}"] td`)).trim();

    // Without a session the page is the login form (401). A wrong token: refused, not shown back.
    assert.equal((await page.goto(`${base}/status`))?.status(), 401);
    const wrongToken = 'not-the-status-token-0000000000';
    await page.fill('input[name="token"]', wrongToken);
    const [wrong] = await Promise.all([
      page.waitForNavigation(),
      page.click('button[type="submit"]'),
    ]);
    assert.equal(wrong?.status(), 401);
    assert.match(await page.innerText('#login-error'), /not the status token/);
    assert.ok(!(await page.content()).includes(wrongToken), 'the typed token is not echoed');
    assert.deepEqual(await context.cookies(), []);
    await screenshot(page, 'subscriber-status-login');

    // The right token: the status page, with an HttpOnly SameSite=Strict session cookie.
    await page.fill('input[name="token"]', statusToken);
    await Promise.all([page.waitForURL(`${base}/status`), page.click('button[type="submit"]')]);
    assert.equal(await page.title(), 'rsnotify subscriber status');
    const [cookie] = await context.cookies();
    assert.equal(cookie?.name, 'rsn_status');
    assert.equal(cookie?.httpOnly, true);
    assert.equal(cookie?.sameSite, 'Strict');
    assert.ok(!cookie?.value.includes(statusToken));
    assert.ok(!(await page.content()).includes(statusToken), 'the page never shows the token');

    // While changes flow, the page shows a lag (a whole number of ms) for the Source.
    sim.start(30);
    await waitFor(async () => ((await statusJson()).syncedUntil ?? '') !== '', {
      what: 'a position',
      timeoutMs: 120_000,
    });
    assert.equal((await page.goto(`${base}/status`))?.status(), 200);
    assert.match(await cell('lagMs'), /^\d+$/);
    assert.equal(await cell('mode'), 'push');

    // A notification the Source never sends opens a gap (RN-5) that a catch-up closes.
    sim.pause();
    await sim.flush();
    sim.faults.dropNext = 1;
    await sim.changeBatch(2);
    await sim.changeBatch(2);
    await sim.flush();
    await waitFor(async () => (await statusJson()).gaps > 0, {
      what: 'a gap detected',
      timeoutMs: 120_000,
    });
    await waitFor(async () => isSyncedTo((await sub.status())[0], sim.lastUntil()), {
      what: 'synced',
      timeoutMs: 120_000,
      describe: syncState(() => sub.status(), sim),
    });
    await waitFor(async () => (await statusJson()).lastReconciliation !== undefined, {
      what: 'a periodic reconciliation',
      timeoutMs: 120_000,
    });

    // Page and JSON agree (read in the same loop: a reconciliation every 3 s may land between).
    let json!: SourceStatus;
    await waitFor(
      async () => {
        await page.goto(`${base}/status`);
        const shown = {
          lag: await cell('lagMs'),
          synced: await cell('syncedUntil'),
          buffered: await cell('buffered'),
          gaps: await cell('gaps'),
          lastGap: await cell('lastGap'),
          reconciled: await cell('lastReconciliation'),
        };
        json = await statusJson();
        const r = json.lastReconciliation!;
        return (
          shown.lag === String(json.lagMs) &&
          shown.synced === json.syncedUntil &&
          shown.buffered === String(json.buffered) &&
          shown.gaps === String(json.gaps) &&
          shown.lastGap.startsWith(`${json.lastGap!.from} to ${json.lastGap!.to}, detected `) &&
          shown.lastGap.endsWith(json.lastGap!.detectedAt) &&
          shown.reconciled.startsWith(`${r.outcome} (${r.reason}) at ${r.at}: checked ${r.checked}`)
        );
      },
      { what: 'the page shows what /status.json says', timeoutMs: 60_000 },
    );
    assert.equal(json.lagMs, 0);
    assert.ok(json.gaps >= 1);
    assert.equal(json.lastReconciliation!.reason, 'periodic');
    assert.match(
      await cell('lastReconciliation'),
      /^(in-sync|repaired|source-changing) \(periodic\) at .*: checked \d+, missing \d+, extra \d+, different \d+; fetched \d+, removed \d+, failed \d+$/,
    );
    assert.equal(await cell('hub'), hub.url);
    assert.equal(
      await page.getAttribute('section[data-source="sim"] tr[data-field="lagMs"] td', 'class'),
      'lag-ok',
    );
    await screenshot(page, 'subscriber-status');

    // Logging out ends the session: the login form again.
    const [out] = await Promise.all([
      page.waitForNavigation(),
      page.click('form[action="/status/logout"] button'),
    ]);
    assert.equal(out?.status(), 401);
    assert.equal(await page.locator('input[name="token"]').count(), 1);
  },
);
