// Bridged Sources in the operator console, in a real headless Chromium: the add-Source form takes
// the bridge's poll settings (poll URL, interval), the page confirms them, and the Sources page
// lists the bridged Source with them (read from the rendered text, innerText). The admin API takes
// the same settings; both refuse what the bridge cannot use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launchChromium, screenshot, skipWithoutChromium } from './chromium.js';
import { api, startConsoleRig } from './rig.js';

interface BridgedView {
  name: string;
  pollUrl: string;
  pollIntervalMs: number;
  topic: string;
}

test(
  'console: add a bridged Source with poll URL and interval; the API takes and refuses the same settings',
  { skip: skipWithoutChromium(), timeout: 120_000 },
  async (t) => {
    const rig = await startConsoleRig(t);
    // Nothing listens there: the bridge's polls fail, which the page shows, and nothing leaves the machine.
    const pollUrl = 'http://127.0.0.1:9/museum/';
    const browser = await launchChromium(t);
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${rig.origin}/admin/`);
    await page.fill('#token', rig.adminToken);
    await Promise.all([page.waitForURL(`${rig.origin}/admin/`), page.click('button[type=submit]')]);

    await page.goto(`${rig.origin}/admin/sources`);
    const form = await page.innerText('#add-source');
    assert.match(form, /Poll URL/);
    assert.match(form, /Poll interval/);
    await page.fill('#name', 'museum-poll');
    await page.fill('#poll', pollUrl);
    await page.fill('#pollInterval', '45s');
    await page.click('#add-source button[type=submit]');
    const added = await page.innerText('#bridged-added');
    assert.match(added, /Bridged museum-poll/);
    assert.ok(added.includes(pollUrl), added);
    assert.match(added, /every 45 s/);
    assert.ok(added.includes(`${rig.hub.url}/bridge/museum-poll`), added);
    await screenshot(page, 'console-bridged-added');

    await page.goto(`${rig.origin}/admin/sources`);
    const row = await page.innerText('tr[data-bridged="museum-poll"]');
    assert.ok(row.includes(pollUrl), row);
    assert.match(row, /every 45 s/);
    await screenshot(page, 'console-sources-bridged');

    // Both a poll URL and topic prefixes: refused with a message, nothing added.
    await page.fill('#name', 'both');
    await page.fill('#topicPrefixes', 'http://source.test/both/');
    await page.fill('#poll', pollUrl);
    await page.click('#add-source button[type=submit]');
    assert.match(await page.innerText('.error'), /either polled .* or publishes/);
    assert.equal(await page.locator('tr[data-bridged="both"]').count(), 0);

    // The admin API: the same settings, listed beside the publishing Sources.
    const listed = await api<{ bridged: BridgedView[] }>(rig, 'GET', '/sources');
    assert.deepEqual(
      listed.data.bridged.map((b) => [b.name, b.pollUrl, b.pollIntervalMs]),
      [['museum-poll', pollUrl, 45_000]],
    );
    const viaApi = await api<{ bridged: BridgedView }>(rig, 'POST', '/sources', {
      name: 'archive',
      poll: 'http://127.0.0.1:9/archive/',
      pollInterval: '2m',
    });
    assert.equal(viaApi.status, 201, viaApi.text);
    assert.equal(viaApi.data.bridged.pollIntervalMs, 120_000);
    assert.equal(viaApi.data.bridged.topic, `${rig.hub.url}/bridge/archive`);
    const tooFast = await api<{ error: string }>(rig, 'POST', '/sources', {
      name: 'fast',
      poll: 'http://127.0.0.1:9/fast/',
      pollInterval: 5,
    });
    assert.equal(tooFast.status, 400);
    assert.equal(tooFast.data.error, 'RSN_ADMIN_BAD_POLL');
    const mixed = await api(rig, 'POST', '/sources', {
      name: 'mixed',
      poll: 'http://127.0.0.1:9/m/',
      topicPrefixes: ['http://source.test/m/'],
    });
    assert.equal(mixed.status, 400);
    assert.equal((await api(rig, 'DELETE', '/sources/archive')).status, 204);
    const after = await api<{ bridged: BridgedView[] }>(rig, 'GET', '/sources');
    assert.deepEqual(
      after.data.bridged.map((b) => b.name),
      ['museum-poll'],
    );
  },
);
