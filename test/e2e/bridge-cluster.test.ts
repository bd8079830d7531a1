// The poll-to-push bridge on a cluster: two hub processes on one PostgreSQL, one list-only Source
// simulator bridged by both (the same config file), three real subscribers of the bridged channel.
// Exactly one process polls the Source (the cluster leader: the other's poll counter stays at
// zero); when the leader dies (kill -9) the other takes over from the stored position, without a
// fresh start, and every mirror converges byte-identical under list lag, 503s with Retry-After and
// history cut short. On the Source side: the bridge's polls are conditional (304s counted) and no
// bridge request comes before a 503's Retry-After has run out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { startSubscriber, type RunningSubscriber } from '@rsnotify/subscriber';
import { compareDateTime, parseDateTime } from '@rsnotify/shared';
import { testPostgres } from '../../scripts/postgres-server.mjs';
import { startSourceSimulator, type SourceSimulator } from '../src/source-simulator/index.js';
import {
  diffMirror,
  freePort,
  isIdentical,
  sleep,
  spawnCli,
  waitFor,
  type ManagedProcess,
} from '../src/harness/index.js';
import { subscriberConfig, type Workspace } from './subscriber-helpers.js';

const server = await testPostgres();
const skip = 'skip' in server ? server.skip : false;
const HUB_CLI = 'hub/src/cli.ts';
const BRIDGE_UA = 'rsnotify-hub-bridge';

async function produce(sim: SourceSimulator, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    await sim.changeBatch(1 + Math.floor(Math.random() * 4));
    await sleep(60);
  }
}

/** This process's count of bridge polls (every result), from its /metrics. */
async function bridgePolls(hubUrl: string): Promise<number> {
  const res = await request(new URL('/metrics', hubUrl).href);
  const text = await res.body.text();
  let n = 0;
  for (const m of text.matchAll(/^rsnotify_hub_bridge_polls_total\{[^}]*\} (\d+)/gm))
    n += Number(m[1]);
  return n;
}

test(
  'bridge on PostgreSQL: two hubs, one poller; the leader killed -9, the other resumes; three subscribers converge under lag, 503s and truncated history',
  { skip, timeout: 600_000 },
  async (t) => {
    if ('skip' in server) return;
    const db = server.newDatabase('e2e_bridge_cluster');
    const dir = mkdtempSync(join(tmpdir(), 'rsnotify-bridge-cluster-'));
    const sim = await startSourceSimulator({
      seed: 53,
      initialResources: 30,
      listOnly: true,
      changeListMaxEntries: 40,
      changeListMaxAgeMs: 1_500,
    });
    const procs: ManagedProcess[] = [];
    const subs: { ws: Workspace; sub: RunningSubscriber }[] = [];
    t.after(async () => {
      for (const { sub } of subs) await sub.close();
      for (const p of procs) await p.stop().catch(() => undefined);
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const configFile = join(dir, 'hub.yaml');
    writeFileSync(
      configFile,
      JSON.stringify({
        bridge: { sources: [{ name: 'sim', poll: sim.baseUrl, pollInterval: '250ms' }] },
      }),
    );
    // One public address for the cluster (hub B's): the bridged topic is the same for both.
    const [portA, portB] = [await freePort(), await freePort()];
    const publicUrl = `http://127.0.0.1:${portB}/hub`;
    const hubArgs = (port: number) => [
      'serve',
      '--config',
      configFile,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--public-url',
      publicUrl,
      '--db',
      db,
      '--allow-private-networks',
      '--lease-min',
      '1',
      '--retry-initial-ms',
      '100',
      '--retry-max-ms',
      '1000',
      '--log-level',
      'info',
    ];
    // A first: it takes the leader lock, so it is the poller; B joins after.
    const hubA = spawnCli(HUB_CLI, hubArgs(portA));
    procs.push(hubA);
    await hubA.waitForEvent('hub.listening', 90_000);
    await hubA.waitForEvent('bridge.started', 60_000);
    const hubB = spawnCli(HUB_CLI, hubArgs(portB));
    procs.push(hubB);
    await hubB.waitForEvent('hub.listening', 90_000);
    const urlA = `http://127.0.0.1:${portA}/hub`;

    // Quirks of a busy, slow Source, from now on.
    Object.assign(sim.faults, {
      changeListLagMs: 400,
      listUnavailableProbability: 0.15,
      retryAfterSeconds: 1,
    });
    for (let i = 0; i < 3; i++) {
      const base = join(dir, `sub-${i}`);
      const ws: Workspace = {
        dir: base,
        dataDir: join(base, 'data'),
        mirrorDir: join(base, 'mirror'),
        remove: async () => undefined,
      };
      const sub = await startSubscriber(
        subscriberConfig(ws, sim.wellKnownUrl, {
          hub: publicUrl,
          topic: `${publicUrl}/bridge/sim`,
          gapTimeout: '1s',
        }),
      );
      subs.push({ ws, sub });
    }
    for (const { sub } of subs)
      await waitFor(
        async () => {
          const s = (await sub.status())[0];
          return s?.subscriptionState === 'active' && s.syncedUntil;
        },
        { timeoutMs: 90_000, intervalMs: 200, what: 'subscribed and baselined' },
      );

    await produce(sim, 3_000);
    sim.faults.truncateHistoryNext = 3;
    await produce(sim, 1_500);
    // Exactly one poller while both live: B has polled nothing, A has.
    assert.equal(await bridgePolls(publicUrl), 0, 'hub B never polled while A led');
    assert.ok((await bridgePolls(urlA)) > 0, 'hub A polled');
    assert.ok(
      !hubB.lines.some((l) => l.includes('"bridge.polling_started"')),
      'hub B did not start polling',
    );

    await hubA.kill9();
    const killedAt = Date.now();
    await produce(sim, 1_000);
    await hubB.waitForEvent('bridge.polling_started', 60_000);
    await produce(sim, 3_000);

    // Convergence: past everything made before a final clean batch, byte-identical.
    Object.assign(sim.faults, { changeListLagMs: 0, listUnavailableProbability: 0 });
    const target = sim.lastUntil()!;
    await sim.changeBatch(2);
    for (const [i, { ws, sub }] of subs.entries()) {
      await waitFor(
        async () => {
          const s = (await sub.status())[0];
          return (
            s?.syncedUntil &&
            compareDateTime(parseDateTime(s.syncedUntil), parseDateTime(target)) > 0 &&
            s.buffered === 0
          );
        },
        { timeoutMs: 120_000, intervalMs: 250, what: `subscriber ${i} synced past ${target}` },
      );
      await waitFor(
        async () => {
          const x = await diffMirror(ws.mirrorDir, sim.snapshot());
          return isIdentical(x) ? x : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 250, what: `mirror ${i} byte-identical to the Source` },
      );
    }

    // B took over from the stored position: no fresh start, and it published bridged changes.
    assert.ok((await bridgePolls(publicUrl)) > 0, 'hub B polls after the take-over');
    assert.ok(!hubB.lines.some((l) => l.includes('"bridge.started"')), 'no fresh start on B');
    assert.ok(
      hubB.lines.some((l) => l.includes('"bridge.published"')),
      'B published changes',
    );
    assert.ok(
      ![...hubA.lines, ...hubB.lines].some((l) => l.includes('"bridge.poll_superseded"')),
      'no two processes polled the Source at once',
    );

    // The Source's view of the bridge's polls.
    const polls = sim.listRequests().filter((r) => r.userAgent === BRIDGE_UA);
    assert.ok(
      polls.some((r) => r.status === 304),
      `conditional GETs answered 304 (${polls.filter((r) => r.status === 304).length} of ${polls.length})`,
    );
    assert.ok(polls.filter((r) => r.conditional).length > polls.length / 2, 'mostly conditional');
    const refused = polls.filter((r) => r.status === 503);
    assert.ok(refused.length > 0, 'the bridge met 503s');
    for (const r of refused) {
      const next = polls.find((p) => p.at > r.at);
      // A request by the other process right after the take-over never saw this Retry-After.
      if (!next || (r.at < killedAt && next.at >= killedAt)) continue;
      assert.ok(
        next.at >= r.at + r.retryAfterS! * 1000 - 50,
        `Retry-After ${r.retryAfterS}s honoured: next request ${next.at - r.at} ms after the 503`,
      );
    }
  },
);
