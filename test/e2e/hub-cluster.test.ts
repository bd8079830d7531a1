// Three hub processes on one PostgreSQL (real processes, so kill -9 is a real crash): 20 subscribers
// on 4 topics (80 subscriptions), 2,000 notifications published to random processes, one process
// killed with -9 mid fan-out. Promise 1 across the takeover: every notification answered 200 reaches
// every subscription (0 lost), in publish order per subscription (0 order violations); duplicates
// (re-sent after the takeover, at-least-once) are counted and reported.
import { changeNotificationXml } from '@rsnotify/service-kit/testing';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { testPostgres } from '../../scripts/postgres-server.mjs';
import { spawnCli, waitFor, type ManagedProcess } from '../src/harness/index.js';

const server = await testPostgres();
const skip = 'skip' in server ? server.skip : false;
const HUB_CLI = 'hub/src/cli.ts';

const SUBSCRIBERS = 20;
const TOPICS = 4;
const PER_TOPIC = 500;

function notification(tag: string): string {
  return changeNotificationXml({
    from: '2026-01-01T00:00:00Z',
    until: '2026-01-01T00:00:01Z',
    entries: [
      { loc: `http://source.test/res/${tag}`, change: 'updated', datetime: '2026-01-01T00:00:00Z' },
    ],
  });
}

interface Hub {
  readonly proc: ManagedProcess;
  readonly url: string;
  alive: boolean;
}

async function startHubProcess(db: string): Promise<Hub> {
  const proc = spawnCli(HUB_CLI, [
    'serve',
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--db',
    db,
    '--allow-private-networks',
    '--no-check-topics',
    '--lease-min',
    '1',
    '--log-level',
    'info',
  ]);
  const listening = await proc.waitForEvent('hub.listening', 90_000);
  return { proc, url: String(listening.url), alive: true };
}

async function claimsOf(hub: Hub): Promise<number> {
  const res = await request(new URL('/healthz', hub.url).href);
  const body = (await res.body.json()) as { claims?: number };
  return body.claims ?? 0;
}

test(
  'e2e: 3 hubs on one PostgreSQL, kill -9 one mid fan-out: 0 lost, 0 order violations, duplicates counted',
  { skip, timeout: 600_000 },
  async (t) => {
    if ('skip' in server) return;
    const db = server.newDatabase('e2e_cluster');

    // The subscribers: one HTTP server, one callback path each; every delivery is recorded in arrival order.
    const received = new Map<string, string[]>(); // "sub/topic" -> tags in arrival order
    const verified = new Set<string>();
    const callbacks = createServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      if (req.method === 'GET') {
        if (u.searchParams.get('hub.mode') === 'subscribe') verified.add(u.pathname);
        res
          .writeHead(200, { 'content-type': 'text/plain' })
          .end(u.searchParams.get('hub.challenge') ?? '');
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const tag = /res\/([^<]+)<\/loc>/.exec(Buffer.concat(chunks).toString())?.[1] ?? '?';
        const list = received.get(u.pathname) ?? [];
        list.push(tag);
        received.set(u.pathname, list);
        res.writeHead(200).end();
      });
    });
    callbacks.keepAliveTimeout = 30_000;
    await new Promise<void>((r) => callbacks.listen(0, '127.0.0.1', r));
    t.after(() => {
      callbacks.closeAllConnections();
      callbacks.close();
    });
    const base = `http://127.0.0.1:${(callbacks.address() as AddressInfo).port}`;

    // A Source registered through the CLI on the shared database.
    const add = spawnCli(HUB_CLI, [
      'source',
      'add',
      'sim',
      '--topic-prefix',
      'http://source.test/',
      '--db',
      db,
    ]);
    const added = await add.waitForEvent('source.added', 90_000);
    const token = String(added.token);
    assert.equal(await add.exited, 0);

    const hubs = await Promise.all([1, 2, 3].map(() => startHubProcess(db)));
    t.after(async () => {
      await Promise.all(hubs.map((h) => h.proc.stop()));
    });
    const live = () => hubs.filter((h) => h.alive);
    const pick = () => {
      const l = live();
      return l[Math.floor(Math.random() * l.length)]!;
    };

    const topics = Array.from({ length: TOPICS }, (_, j) => `http://source.test/topic${j}`);
    const paths: string[] = [];
    for (let k = 0; k < SUBSCRIBERS; k++) {
      for (let j = 0; j < TOPICS; j++) {
        const path = `/sub${k}/t${j}`;
        paths.push(path);
        const res = await request(pick().url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            'hub.mode': 'subscribe',
            'hub.topic': topics[j]!,
            'hub.callback': `${base}${path}`,
            'hub.lease_seconds': '3600',
          }).toString(),
        });
        assert.equal(res.statusCode, 202, await res.body.text());
      }
    }
    await waitFor(() => verified.size === paths.length, {
      what: 'all 80 subscriptions verified',
      timeoutMs: 120_000,
    });
    await waitFor(
      async () => {
        const counts = await Promise.all(hubs.map(claimsOf));
        return counts.reduce((a, b) => a + b, 0) === paths.length && counts.every((c) => c > 0);
      },
      { what: 'the 80 subscriptions claimed, spread over all three processes', timeoutMs: 60_000 },
    );

    // Publish: one sequential chain per topic (so publish order per topic is defined), each publish to
    // a random live process; a refused connection or 503 is retried elsewhere with a new tag.
    const accepted: string[][] = topics.map(() => []);
    let acceptedTotal = 0;
    let killed: Hub | undefined;
    let killing = false;
    const started = Date.now();
    const phases: string[] = [];
    let retries = 0;
    const chains = topics.map(async (topic, j) => {
      for (let i = 0; i < PER_TOPIC; i++) {
        for (let attempt = 0; ; attempt++) {
          const hub = pick();
          const tag = `t${j}-${i}-a${attempt}`;
          try {
            const res = await request(hub.url, {
              method: 'POST',
              body: notification(tag),
              headers: {
                'content-type': 'application/xml',
                authorization: `Bearer ${token}`,
                link: `<${topic}>; rel="self", <${hub.url}>; rel="hub"`,
              },
            });
            await res.body.dump();
            if (res.statusCode === 200) {
              accepted[j]!.push(tag);
              acceptedTotal++;
              break;
            }
            assert.ok(res.statusCode === 503, `publish answered ${res.statusCode}`);
          } catch {
            /* the process died under us: not answered 200, so not owed */
          }
          retries++;
          await new Promise((r) => setTimeout(r, 20));
        }
        if (!killing && acceptedTotal >= 600) {
          killing = true;
          // Mid fan-out: the process driving the most subscriptions dies without a word.
          const counts = await Promise.all(hubs.map(claimsOf));
          const victim = hubs[counts.indexOf(Math.max(...counts))]!;
          victim.alive = false;
          await victim.proc.kill9();
          killed = victim;
          phases.push(`killed at ${acceptedTotal} accepted, ${Date.now() - started} ms`);
        }
      }
    });
    await Promise.all(chains);
    phases.push(`published ${Date.now() - started} ms`);
    assert.ok(killed, 'a process was killed mid fan-out');
    assert.equal(acceptedTotal, TOPICS * PER_TOPIC);

    // Everything answered 200 reaches every subscription.
    const missing = () => {
      let n = 0;
      for (const path of paths) {
        const j = Number(/t(\d+)$/.exec(path)![1]);
        const got = new Set(received.get(path) ?? []);
        for (const tag of accepted[j]!) if (!got.has(tag)) n++;
      }
      return n;
    };
    await waitFor(() => missing() === 0, {
      what: 'every accepted notification delivered to every subscription',
      timeoutMs: 300_000,
    }).catch(() => undefined);
    const lost = missing();
    phases.push(`delivered ${Date.now() - started} ms`);

    // Order per subscription: a delivery is new and next (index = highest so far + 1), or a re-send
    // of one already seen (duplicate, at-least-once); anything else skipped ahead: an order violation.
    let violations = 0;
    let duplicates = 0;
    for (const path of paths) {
      const j = Number(/t(\d+)$/.exec(path)![1]);
      const index = new Map(accepted[j]!.map((tag, i) => [tag, i]));
      let highest = -1;
      for (const tag of received.get(path) ?? []) {
        const i = index.get(tag);
        if (i === undefined) continue; // committed but its answer was lost with the process: never answered 200
        if (i === highest + 1) highest = i;
        else if (i <= highest) duplicates++;
        else {
          violations++;
          highest = i;
        }
      }
    }
    const after = await Promise.all(live().map(claimsOf));
    t.diagnostic(
      `deliveries owed ${TOPICS * PER_TOPIC * SUBSCRIBERS}, lost ${lost}, order violations ${violations}, duplicates ${duplicates}, publish retries ${retries}, claims after takeover ${after.join('+')}; ${phases.join(', ')}`,
    );
    assert.equal(lost, 0, 'no notification answered 200 was lost');
    assert.equal(violations, 0, 'publish order held on every subscription');
    assert.equal(
      after.reduce((a, b) => a + b, 0),
      paths.length,
      'the survivors drive every subscription',
    );
  },
);

test(
  'e2e: a subscriber verified through process A receives a notification published to process B',
  { skip, timeout: 300_000 },
  async (t) => {
    if ('skip' in server) return;
    const db = server.newDatabase('e2e_ab');
    const got: string[] = [];
    const verifiedBy: string[] = [];
    const callbacks = createServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      if (req.method === 'GET') {
        verifiedBy.push(u.pathname);
        res.writeHead(200).end(u.searchParams.get('hub.challenge') ?? '');
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push(Buffer.concat(chunks).toString());
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => callbacks.listen(0, '127.0.0.1', r));
    t.after(() => {
      callbacks.closeAllConnections();
      callbacks.close();
    });
    const base = `http://127.0.0.1:${(callbacks.address() as AddressInfo).port}`;

    // A starts first and becomes the leader, so it is A that carries out the verification.
    const a = await startHubProcess(db);
    t.after(() => a.proc.stop());
    await a.proc.waitForEvent('cluster.leader', 60_000);
    const b = await startHubProcess(db);
    t.after(() => b.proc.stop());
    const add = spawnCli(HUB_CLI, [
      'source',
      'add',
      'src',
      '--topic-prefix',
      'http://source.test/',
      '--db',
      db,
    ]);
    const token = String((await add.waitForEvent('source.added', 90_000)).token);

    const topic = 'http://source.test/ab';
    const sub = await request(a.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        'hub.mode': 'subscribe',
        'hub.topic': topic,
        'hub.callback': `${base}/cb`,
      }).toString(),
    });
    assert.equal(sub.statusCode, 202);
    await a.proc.waitForEvent('subscription.verified', 60_000);
    assert.deepEqual(verifiedBy, ['/cb']);
    await waitFor(async () => (await claimsOf(a)) + (await claimsOf(b)) === 1, {
      what: 'the subscription is claimed',
      timeoutMs: 60_000,
    });
    // B learns of the new Source through the database (LISTEN), then accepts the publish.
    await waitFor(
      async () => {
        const res = await request(b.url, {
          method: 'POST',
          body: notification('from-b'),
          headers: {
            'content-type': 'application/xml',
            authorization: `Bearer ${token}`,
            link: `<${topic}>; rel="self", <${b.url}>; rel="hub"`,
          },
        });
        await res.body.dump();
        return res.statusCode === 200;
      },
      { what: 'publish to B accepted', timeoutMs: 30_000 },
    );
    await waitFor(() => got.some((x) => x.includes('res/from-b<')), {
      what: 'delivered to the subscriber verified through A',
      timeoutMs: 60_000,
    });
  },
);
