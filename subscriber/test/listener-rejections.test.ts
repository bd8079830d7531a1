// Refusals on the subscriber's listener that never reach the app: a request head past Node's header
// limit (431, RFC 6585 §5), a malformed head (400). Each is answered with its status, a log line and
// rsnotify_subscriber_requests_rejected_total{status,reason}, as the hub does; the daemon keeps
// serving afterwards. Real daemon on 127.0.0.1, real oversized headers over a raw socket.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { request } from 'undici';
import { createLogger } from '../src/observability/index.js';
import { startSubscriber } from '../src/service.js';

/** Sends raw bytes, returns everything the server wrote before closing. */
function raw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    socket.on('data', (b: Buffer) => (got += b.toString('latin1')));
    socket.on('error', (err: NodeJS.ErrnoException) =>
      // The server may close while we still write the rest of an oversized head.
      err.code === 'ECONNRESET' || err.code === 'EPIPE' ? resolve(got) : reject(err),
    );
    socket.on('close', () => resolve(got));
    socket.end(bytes);
  });
}

async function metric(port: number, status: string, reason: string): Promise<number> {
  const text = await (await request(`http://127.0.0.1:${port}/metrics`)).body.text();
  const line = text
    .split('\n')
    .find((l) =>
      l.startsWith(
        `rsnotify_subscriber_requests_rejected_total{status="${status}",reason="${reason}"}`,
      ),
    );
  return line ? Number(line.split(' ').at(-1)) : 0;
}

test('431 for oversized request headers and 400 for a malformed head: status, metric, log line', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'rsn-listener-'));
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n'))
        if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  const sub = await startSubscriber(
    {
      listen: { host: '127.0.0.1', port: 0 },
      dataDir: join(dir, 'data'),
      allowPrivateNetworks: true,
      logLevel: 'info',
      sources: [
        // A Source outside the project that is not there: discovery keeps failing, which is fine here.
        {
          name: 's',
          url: 'http://127.0.0.1:9/.well-known/resourcesync',
          mirrorDir: join(dir, 'm'),
        },
      ],
    },
    { logger: createLogger('info', sink) },
  );
  t.after(async () => {
    await sub.close();
    await rm(dir, { recursive: true, force: true });
  });

  // Node's default limit on a request head is 16 KiB; send 64 KiB of one header.
  const oversized = await raw(
    sub.port,
    `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: ${'a'.repeat(64 * 1024)}\r\n\r\n`,
  );
  assert.match(oversized, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
  const manyHeaders = await raw(
    sub.port,
    `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n${Array.from({ length: 2_000 }, (_, i) => `X-H${i}: ${'v'.repeat(20)}\r\n`).join('')}\r\n`,
  );
  assert.match(manyHeaders, /^HTTP\/1\.1 431 /);
  const malformed = await raw(sub.port, 'GET /healthz HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n');
  assert.match(malformed, /^HTTP\/1\.1 400 Bad Request\r\n/);

  // The daemon still serves, and /metrics tells what was refused and why.
  assert.equal((await request(`http://127.0.0.1:${sub.port}/healthz`)).statusCode, 200);
  assert.equal(await metric(sub.port, '431', 'HPE_HEADER_OVERFLOW'), 2);
  const text = await (await request(`http://127.0.0.1:${sub.port}/metrics`)).body.text();
  assert.match(
    text,
    /rsnotify_subscriber_requests_rejected_total\{status="400",reason="HPE_[A-Z_]+"\} 1/,
  );

  const rejected = lines.filter((l) => l.event === 'request.rejected');
  assert.deepEqual(
    rejected.map((l) => l.status),
    [431, 431, 400],
  );
  assert.ok(rejected.every((l) => l.area === 'intake' && typeof l.reason === 'string'));
  // The refused head's content is not logged.
  assert.ok(!JSON.stringify(rejected).includes('aaaaaaaa'));
});
