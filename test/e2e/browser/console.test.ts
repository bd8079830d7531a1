// The operator console in a real headless Chromium: log in with an admin token, add a Source, watch a
// subscriber go healthy -> failing (its callback answers 500) -> healthy, retry a given-up delivery,
// and visit every page (screenshots under test/artifacts/). Along the way, every page the browser
// saw is checked for secrets: no token, hub.secret or callback capability path in full.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { waitFor } from '../../src/harness/index.js';
import { launchChromium, screenshot, skipWithoutChromium } from './chromium.js';
import { api, publishTo, startConsoleRig, subscribe } from './rig.js';

interface SubView {
  id: number;
  topic: string;
  health: string;
  givenUp: number;
  attempts: number;
  queueDepth: number;
}

test(
  'operator console in Chromium: login, add a Source, health turns failing and back, retry given-up',
  { skip: skipWithoutChromium(), timeout: 170_000 },
  async (t) => {
    // Short retries so failing shows within a second, and a retry age short enough to give up in the test.
    const rig = await startConsoleRig(t, {
      retry: { initialDelayMs: 50, maxDelayMs: 300, maxAgeMs: 6_000 },
    });
    const browser = await launchChromium(t);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const seen: { url: string; html: string }[] = [];
    const capture = async (p: Page) => {
      seen.push({ url: p.url(), html: await p.content() });
    };
    const cspViolations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });

    // --- log in: without a session every console page is a 401 with the login form
    const first = await page.goto(`${rig.origin}/admin/`);
    assert.equal(first?.status(), 401);
    assert.match(first?.headers()['content-security-policy'] ?? '', /script-src 'self'/);
    await screenshot(page, 'console-login');
    await page.fill('#token', 'rsnadm_not-a-real-token-at-all');
    await page.click('button[type=submit]');
    assert.match((await page.textContent('.error')) ?? '', /not valid/);
    await page.fill('#token', rig.adminToken);
    await Promise.all([page.waitForURL(`${rig.origin}/admin/`), page.click('button[type=submit]')]);
    assert.equal(await page.textContent('h2'), 'Overview');
    const cookie = (await context.cookies()).find((c) => c.name === 'rsn_admin');
    assert.ok(cookie, 'session cookie set');
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    assert.notEqual(
      cookie.value,
      rig.adminToken,
      'the cookie holds a session id, not the admin token',
    );
    await capture(page);
    await screenshot(page, 'console-overview-empty');

    // --- add a Source through the form; the token is shown once
    await page.goto(`${rig.origin}/admin/sources`);
    await page.fill('#name', 'museum');
    await page.fill('#topicPrefixes', 'http://source.test/museum/');
    await page.fill('#allowCallbacks', `${rig.receiver.baseUrl}/`);
    await page.click('#add-source button[type=submit]');
    const sourceToken = (await page.textContent('#new-token'))?.trim() ?? '';
    assert.match(sourceToken, /^rsn_[A-Za-z0-9_-]{20,}$/);
    await screenshot(page, 'console-source-token-once');
    await page.goto(`${rig.origin}/admin/sources`);
    assert.equal(await page.locator('tr[data-source="museum"]').count(), 1);
    assert.ok(
      !(await page.content()).includes(sourceToken),
      'the Sources page does not show the token again',
    );
    await capture(page);
    await screenshot(page, 'console-sources');

    // --- two subscribers: alpha (will fail and recover) and beta (will be given up, then retried)
    const topicA = 'http://source.test/museum/alpha';
    const topicB = 'http://source.test/museum/beta';
    const cbA = `${rig.receiver.baseUrl}/cb/alpha-capability-7f3e9a1c2b4d`;
    const cbB = `${rig.receiver.baseUrl}/cb/beta-capability-5d8c0e6a9f21`;
    const secret = 'subscriber-secret-0123456789';
    assert.equal(await subscribe(rig.hub.url, topicA, cbA, secret), 202);
    assert.equal(await subscribe(rig.hub.url, topicB, cbB), 202);
    const subs = async () =>
      (await api<{ subscriptions: SubView[] }>(rig, 'GET', '/subscriptions')).data.subscriptions;
    await waitFor(async () => (await subs()).length === 2, {
      what: 'both subscriptions verified',
      timeoutMs: 30_000,
    });
    const idOf = async (topic: string) => (await subs()).find((s) => s.topic === topic)!.id;
    const alpha = await idOf(topicA);
    const beta = await idOf(topicB);

    assert.equal((await publishTo(rig.hub.url, topicA, sourceToken, 'a1')).status, 200);
    await waitFor(
      () => rig.receiver.delivered.some((d) => d.path === '/cb/alpha-capability-7f3e9a1c2b4d'),
      { what: 'first delivery to alpha' },
    );

    const badge = (id: number) => page.locator(`[data-health-for="${id}"]`).first();
    const healthOnPage = async (id: number, want: string) => {
      await page.goto(`${rig.origin}/admin/subscribers`);
      return (await badge(id).getAttribute('data-health')) === want;
    };
    await waitFor(() => healthOnPage(alpha, 'healthy'), {
      what: 'alpha healthy on the page',
      timeoutMs: 30_000,
      intervalMs: 300,
    });
    await capture(page);
    await screenshot(page, 'console-subscribers-healthy');

    // alpha's callback starts answering 500: the page shows it failing (the live script updates the badge).
    rig.receiver.answer.set('/cb/alpha-capability-7f3e9a1c2b4d', 500);
    assert.equal((await publishTo(rig.hub.url, topicA, sourceToken, 'a2')).status, 200);
    await page.goto(`${rig.origin}/admin/subscribers`);
    await page.waitForSelector(`[data-health-for="${alpha}"][data-health="failing"]`, {
      timeout: 60_000,
    });
    await capture(page);
    await screenshot(page, 'console-subscribers-failing');
    await page.goto(`${rig.origin}/admin/`);
    assert.equal(
      await page.locator(`[data-health-for="${alpha}"]`).count(),
      1,
      'the overview lists alpha as needing attention',
    );
    await capture(page);
    await screenshot(page, 'console-overview-failing');

    // ...and back: it answers 200 again, the retry goes through, the page shows healthy.
    rig.receiver.answer.delete('/cb/alpha-capability-7f3e9a1c2b4d');
    await page.goto(`${rig.origin}/admin/subscribers`);
    await page.waitForSelector(`[data-health-for="${alpha}"][data-health="healthy"]`, {
      timeout: 60_000,
    });
    assert.ok(
      rig.receiver.delivered.some((d) => d.path.includes('alpha') && d.body.includes('/res/a2')),
      'a2 reached alpha after recovery',
    );
    await screenshot(page, 'console-subscribers-recovered');

    // --- beta fails until its notification is given up (retry age 6 s), then is retried from the page
    rig.receiver.answer.set('/cb/beta-capability-5d8c0e6a9f21', 503);
    assert.equal((await publishTo(rig.hub.url, topicB, sourceToken, 'b1')).status, 200);
    await waitFor(async () => (await subs()).find((s) => s.id === beta)!.givenUp === 1, {
      what: 'b1 given up',
      timeoutMs: 60_000,
      intervalMs: 250,
    });
    assert.ok(
      !rig.receiver.delivered.some((d) => d.path.includes('beta')),
      'nothing reached beta yet',
    );
    rig.receiver.answer.delete('/cb/beta-capability-5d8c0e6a9f21');
    await page.goto(`${rig.origin}/admin/subscribers/${beta}`);
    assert.equal(await page.locator('#given-up tbody tr').count(), 1);
    await capture(page);
    await screenshot(page, 'console-subscriber-given-up');
    await page.click('#retry-given-up');
    await page.waitForSelector('#retry-result');
    assert.match((await page.innerText('#retry-result')) ?? '', /Retried 1: 1 delivered/);
    assert.equal(
      await page.locator('#no-given-up').count(),
      1,
      'the given-up list is empty after the retry',
    );
    const redelivered = rig.receiver.delivered.find((d) => d.path.includes('beta'));
    assert.ok(redelivered?.body.includes('/res/b1'), 'the retried notification reached beta');
    await capture(page);
    await screenshot(page, 'console-subscriber-retried');

    // --- topics and rejections (a publish with a wrong token is refused and listed)
    const refused = await publishTo(rig.hub.url, topicA, 'rsn_wrongwrongwrongwrongwrongwrong', 'x');
    assert.ok(
      refused.status === 401 || refused.status === 403,
      `wrong token refused (${refused.status})`,
    );
    await page.goto(`${rig.origin}/admin/topics`);
    assert.equal(await page.locator('#topics tbody tr').count(), 2);
    await capture(page);
    await screenshot(page, 'console-topics');
    await page.goto(`${rig.origin}/admin/rejections`);
    await page.waitForSelector('#rejections tbody tr');
    assert.match((await page.textContent('#rejections')) ?? '', new RegExp(String(refused.status)));
    await capture(page);
    await screenshot(page, 'console-rejections');

    // The live counters are filled in by the script from /admin/api/counters.
    await page.goto(`${rig.origin}/admin/`);
    // (The function runs in the page; a string keeps the DOM types out of this Node-only project.)
    await page.waitForFunction(
      'document.querySelector(\'[data-counter="activeSubscriptions"]\')?.textContent === "2"',
      undefined,
      { timeout: 20_000 },
    );

    // --- nothing secret in full on any page seen, and no CSP violation on the way
    for (const { url, html } of seen) {
      for (const secretValue of [
        rig.adminToken,
        sourceToken,
        secret,
        '/cb/alpha-capability-7f3e9a1c2b4d',
        '/cb/beta-capability-5d8c0e6a9f21',
      ]) {
        assert.ok(!html.includes(secretValue), `${url} shows ${secretValue.slice(0, 12)}…`);
      }
    }
    assert.deepEqual(cspViolations, []);

    // --- log out: the session is gone
    await page.click('header form button');
    const after = await page.goto(`${rig.origin}/admin/sources`);
    assert.equal(after?.status(), 401);
  },
);
