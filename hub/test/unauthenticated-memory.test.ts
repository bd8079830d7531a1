// probe: 24 connections with no token, each sending 15 MiB of application/xml and then holding,
// took the hub from 94 MB to 459 MB RSS, because the body was buffered before the token was looked
// at. Now the headers decide first: each gets its 401 and has its upload cut after a small drain,
// and the hub process (a real child process, so its RSS is its own) stays near where it started.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { linkHeader, runHubCli, spawnHubCli, tempDir } from './helpers.js';
import { rawRequest } from './raw-http.js';

const CONNECTIONS = 24;
const BODY_BYTES = 15 * 1024 * 1024;

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

test('probe: 24 unauthenticated 15 MiB uploads are refused from their headers and do not grow the hub', async (t) => {
  const dir = await tempDir(t);
  const db = join(dir, 'hub.db');
  const added = await runHubCli([
    'source',
    'add',
    'mem',
    '--topic-prefix',
    'http://mem.test/',
    '--db',
    db,
  ]);
  assert.equal(added.code, 0);
  const hub = spawnHubCli([
    'serve',
    '--port',
    '0',
    '--db',
    db,
    '--allow-private-networks',
    '--log-level',
    'info',
  ]);
  t.after(() => hub.stop());
  const url = new URL(String((await hub.waitForEvent('hub.listening')).url));
  const port = Number(url.port);
  const before = rssBytes(hub.child.pid!);
  const body = Buffer.alloc(BODY_BYTES, 0x20);
  const head = [
    `POST ${url.pathname} HTTP/1.1`,
    `Host: ${url.host}`,
    'Content-Type: application/xml',
    `Link: ${linkHeader('http://mem.test/topic', url.href)}`,
    `Content-Length: ${BODY_BYTES}`,
    '',
    '',
  ].join('\r\n');
  const answers = await Promise.all(
    Array.from({ length: CONNECTIONS }, () =>
      rawRequest(port, head, { body, stopOnAnswer: true, timeoutMs: 60_000 }),
    ),
  );
  const after = rssBytes(hub.child.pid!);
  for (const a of answers) {
    assert.equal(a.status, 401, a.head || a.sendError);
    assert.ok(
      a.bytesWritten < BODY_BYTES,
      `a client sent its whole body (${a.bytesWritten} bytes)`,
    );
  }
  t.diagnostic(
    `hub RSS ${(before / 2 ** 20).toFixed(0)} MiB before, ${(after / 2 ** 20).toFixed(0)} MiB after ${CONNECTIONS} x 15 MiB uploads`,
  );
  // Buffering the bodies would add 360 MiB; a generous ceiling that still cannot pass if it did.
  assert.ok(
    after - before < 120 * 2 ** 20,
    `RSS grew by ${((after - before) / 2 ** 20).toFixed(0)} MiB`,
  );
});
