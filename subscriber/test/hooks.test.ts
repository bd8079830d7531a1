import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Agent } from 'undici';
import { createHookRunner, hookEnv } from '../src/hooks/index.js';

const change = {
  source: 's',
  uri: 'http://x.test/a b?q=1',
  change: 'updated' as const,
  path: '/m/x.test/a b%3Fq=1',
  time: '2020-01-01T00:00:00Z',
};

test('hook environment carries the change; nothing is interpolated into the command', () => {
  assert.deepEqual(hookEnv(change), {
    RSNOTIFY_SOURCE: 's',
    RSNOTIFY_URI: 'http://x.test/a b?q=1',
    RSNOTIFY_CHANGE: 'updated',
    RSNOTIFY_PATH: '/m/x.test/a b%3Fq=1',
    RSNOTIFY_TIME: '2020-01-01T00:00:00Z',
  });
});

test('a command hook runs once per change with the change in its environment', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'rsn-hook-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const out = join(dir, 'out.txt');
  const agent = new Agent();
  t.after(() => agent.close());
  const hooks = createHookRunner(
    { command: `printf '%s|%s\\n' "$RSNOTIFY_CHANGE" "$RSNOTIFY_URI" >> '${out}'` },
    {
      logger: pino({ level: 'silent' }),
      dispatcher: agent,
      outbound: { allowPrivateNetworks: true },
      concurrency: 1,
    },
  );
  hooks.notify(change);
  hooks.notify({ ...change, change: 'deleted', uri: 'http://x.test/$(touch pwned)' });
  await hooks.drain(5_000);
  assert.deepEqual((await readFile(out, 'utf8')).trim().split('\n'), [
    'updated|http://x.test/a b?q=1',
    'deleted|http://x.test/$(touch pwned)',
  ]);
});

test('a URL hook POSTs the change as JSON; a failing hook does not throw', async (t) => {
  const received: unknown[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push(JSON.parse(body));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  const agent = new Agent();
  t.after(() => agent.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const hooks = createHookRunner(
    { url },
    {
      logger: pino({ level: 'silent' }),
      dispatcher: agent,
      outbound: { allowPrivateNetworks: true },
    },
  );
  hooks.notify(change);
  await hooks.drain(5_000);
  assert.deepEqual(received, [change]);
  const refused = createHookRunner(
    { url },
    {
      logger: pino({ level: 'silent' }),
      dispatcher: agent,
      outbound: { allowPrivateNetworks: false },
    },
  );
  refused.notify(change); // loopback refused by the SSRF guard: logged, not thrown
  await refused.drain(5_000);
  assert.equal(received.length, 1);
});
