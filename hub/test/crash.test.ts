// Promise 1 under a real crash: kill -9 the hub process while it fans out thousands of notifications
// to many subscribers, restart it on the same database, and every subscriber ends with every
// accepted notification, first occurrences in publish order (duplicates allowed, losses not).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { request } from 'undici';
import {
  Receiver,
  linkHeader,
  notificationXml,
  postForm,
  runHubCli,
  spawnHubCli,
  tempDir,
  waitFor,
  type HubProcess,
} from './helpers.js';

const NOTIFICATIONS = 1500;
const RECEIVERS = 4;
const PATHS_PER_RECEIVER = 10;
const TOPIC = 'http://crash.test/changes';

test('promise 1, M-5: kill -9 during fan-out, restart, and every subscriber has every notification in order', async (t) => {
  const dir = await tempDir(t);
  const db = join(dir, 'hub.db');
  const added = await runHubCli([
    'source',
    'add',
    'crash',
    '--topic-prefix',
    'http://crash.test/',
    '--db',
    db,
  ]);
  const token = (JSON.parse(added.lines.find((l) => l.startsWith('{'))!) as { token: string })
    .token;
  const args = [
    'serve',
    '--port',
    '0',
    '--db',
    db,
    '--allow-private-networks',
    '--retry-initial-ms',
    '50',
    '--retry-max-ms',
    '500',
    '--log-level',
    'info',
  ];
  let hub: HubProcess = spawnHubCli(args);
  t.after(() => hub.stop());
  let url = String((await hub.waitForEvent('hub.listening')).url);

  const receivers = await Promise.all(Array.from({ length: RECEIVERS }, () => Receiver.start()));
  t.after(() => Promise.all(receivers.map((r) => r.close())));
  const subscribers = receivers.flatMap((r) =>
    Array.from({ length: PATHS_PER_RECEIVER }, (_, i) => ({ r, path: `/sub${i}` })),
  );
  for (const s of subscribers) {
    assert.equal(
      (
        await postForm(url, {
          'hub.mode': 'subscribe',
          'hub.topic': TOPIC,
          'hub.callback': s.r.url(s.path),
        })
      ).status,
      202,
    );
  }
  await waitFor(
    async () => {
      const res = await request(new URL('/metrics', url).href);
      return (
        /rsnotify_hub_subscriptions\{state="active"\} (\d+)/.exec(await res.body.text())?.[1] ===
        String(subscribers.length)
      );
    },
    'all subscriptions active',
    30_000,
  );

  const total = () => receivers.reduce((n, r) => n + r.deliveries.length, 0);
  const accepted: string[] = [];
  let killedAt: number | undefined;
  let restarting: Promise<void> | undefined;

  // The crash: once a third of the fan-out has arrived, kill -9, then start again on the same DB.
  const crasher = (async () => {
    await waitFor(
      () => total() >= (NOTIFICATIONS * subscribers.length) / 3,
      'a third of the fan-out',
      120_000,
    );
    killedAt = total();
    restarting = (async () => {
      await hub.kill9();
      hub = spawnHubCli(args);
      url = String((await hub.waitForEvent('hub.listening')).url);
    })();
    await restarting;
  })();

  // Sequential publishing gives a known publish order; a publish that fails while the hub is down is
  // retried, so the Source's sequence is complete. Only 200 answers count as accepted.
  for (let i = 0; i < NOTIFICATIONS; i++) {
    const tag = `n${i}`;
    for (;;) {
      try {
        const res = await request(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/xml',
            link: linkHeader(TOPIC, url),
            authorization: `Bearer ${token}`,
          },
          body: notificationXml(tag),
        });
        await res.body.dump();
        if (res.statusCode === 200) {
          accepted.push(tag);
          break;
        }
      } catch {
        /* the hub is down */
      }
      if (restarting) await restarting;
      else await new Promise((r) => setTimeout(r, 20));
    }
  }
  await crasher;
  assert.ok(
    killedAt !== undefined && killedAt < NOTIFICATIONS * subscribers.length,
    'killed in the middle of the fan-out',
  );

  await waitFor(
    () =>
      subscribers.every(
        (s) =>
          new Set(s.r.deliveriesTo(s.path).map((d) => d.body.toString())).size >= accepted.length,
      ),
    'every subscriber has every notification',
    150_000,
  );
  let duplicates = 0;
  for (const s of subscribers) {
    const seen: string[] = [];
    const unique = new Set<string>();
    for (const d of s.r.deliveriesTo(s.path)) {
      const tag = /\/res\/([^/]+)\//.exec(d.body.toString())![1]!;
      if (unique.has(tag)) {
        duplicates++;
        continue;
      }
      unique.add(tag);
      seen.push(tag);
    }
    assert.deepEqual(
      seen,
      accepted,
      `${s.r.baseUrl}${s.path}: every notification, first occurrences in publish order`,
    );
  }
  t.diagnostic(
    `killed after ${killedAt} of ${NOTIFICATIONS * subscribers.length} deliveries; ${duplicates} duplicate deliveries after the restart`,
  );
});
