// The rsnotify-subscriber CLI as a user runs it (child processes on the TypeScript sources) against the
// simulated Source: discover, sync (baseline, then catch-up without a hub), audit (exit code tells
// whether the mirror is in sync), status --json, and a command hook run after each applied change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startSourceSimulator } from '../src/source-simulator/index.js';
import { spawnCli } from '../src/harness/index.js';
import {
  mirrorEquals,
  subscriberConfig,
  workspace,
  writeConfigFile,
} from './subscriber-helpers.js';

async function run(args: string[]): Promise<{ code: number | null; out: string }> {
  const p = spawnCli('subscriber/src/cli.ts', args);
  const code = await p.exited;
  return { code, out: p.lines.join('\n') };
}

test('discover prints the route, the Capability List and the channel', async (t) => {
  const sim = await startSourceSimulator({ seed: 3, initialResources: 3 });
  t.after(() => sim.close());
  sim.setHub('http://127.0.0.1:9/hub');
  const r = await run(['discover', sim.baseUrl + '/', '--allow-private-networks']);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /capability list:\s+http:\/\/127\.0\.0\.1:\d+\//);
  assert.match(r.out, /mode:\s+push/);
  assert.ok(r.out.includes(sim.topicUrl), r.out);
  const denied = await run(['discover', sim.baseUrl + '/']);
  assert.notEqual(denied.code, 0, 'loopback is refused without --allow-private-networks');
});

test('sync, audit and status work without a hub; the command hook sees each applied change', async (t) => {
  const ws = await workspace('rsn-cli-');
  t.after(() => ws.remove());
  const sim = await startSourceSimulator({ seed: 5, initialResources: 12 });
  t.after(() => sim.close());
  const hookLog = join(ws.dir, 'hook.log');
  const cfg = subscriberConfig(
    ws,
    sim.wellKnownUrl,
    { hook: { command: `printf '%s %s\\n' "$RSNOTIFY_CHANGE" "$RSNOTIFY_URI" >> '${hookLog}'` } },
    { logLevel: 'warn' },
  );
  const file = await writeConfigFile(ws, cfg);

  const first = await run(['sync', 'sim', '--config', file]);
  assert.equal(first.code, 0, first.out);
  assert.ok(await mirrorEquals(ws.mirrorDir, sim.snapshot()), 'baseline mirrored the Source');
  assert.equal((await run(['audit', 'sim', '--config', file])).code, 0);

  await sim.changeBatch(4); // no hub: only the Change Lists know
  const stale = await run(['audit', 'sim', '--config', file]);
  assert.equal(stale.code, 1, 'audit exits 1 when the mirror is not in sync');

  const second = await run(['sync', 'sim', '--config', file]);
  assert.equal(second.code, 0, second.out);
  assert.ok(await mirrorEquals(ws.mirrorDir, sim.snapshot()), 'catch-up mirrored the changes');
  assert.equal((await run(['audit', 'sim', '--config', file])).code, 0);

  const status = await run(['status', '--json', '--config', file]);
  assert.equal(status.code, 0, status.out);
  const parsed = JSON.parse(status.out.slice(status.out.indexOf('['))) as {
    name: string;
    syncedUntil?: string;
    mode: string;
  }[];
  assert.equal(parsed[0]?.name, 'sim');
  assert.ok(parsed[0]?.syncedUntil);

  const hooks = (await readFile(hookLog, 'utf8')).trim().split('\n');
  assert.ok(hooks.length >= 12 + 1, `hook ran per applied change (${hooks.length})`);
  assert.ok(
    hooks.every((l) => /^(created|updated|deleted) http:\/\//.test(l)),
    hooks.join('\n'),
  );
});

test('status before the daemon ever ran names each configured source and says there is no state yet', async (t) => {
  const ws = await workspace('rsn-cli-fresh-');
  t.after(() => ws.remove());
  const file = await writeConfigFile(ws, subscriberConfig(ws, 'http://127.0.0.1:9/'));
  const text = await run(['status', '--config', file]);
  assert.equal(text.code, 0, text.out);
  assert.match(text.out, /^sim\s+\(unknown\)/m);
  assert.match(text.out, /no state yet: the daemon has not run/);
  const json = await run(['status', '--config', file, '--json']);
  assert.equal(json.code, 0, json.out);
  const [s] = JSON.parse(json.out.slice(json.out.indexOf('['))) as {
    name: string;
    mode: string;
    syncedUntil?: string;
  }[];
  assert.deepEqual([s!.name, s!.mode, s!.syncedUntil], ['sim', 'unknown', undefined]);
});

test('CLI: --version prints the package version; usage errors exit 2 with the command help', async () => {
  const version = await run(['--version']);
  assert.equal(version.code, 0);
  assert.match(version.out, /^0\.1\.0$/m);
  const unknown = await run(['status', '--no-such-flag']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.out, /Usage: rsnotify-subscriber status/);
});
