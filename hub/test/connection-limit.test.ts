// The per-client connection limit on the hub's listener, over real sockets: past the limit a new
// connection from the same address is answered 503 with `Connection: close` and closed before any of
// its request is read, counted in rsnotify_hub_requests_rejected_total and logged; once one of the
// client's connections closes, it may connect again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { startHub } from '@rsnotify/hub';
import { createLogger } from '../src/observability/logger.js';
import { get, metricValue, tempDir, waitFor } from './helpers.js';

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
}

/** Sends one request on a fresh connection and reads until the server closes it (or 20 s pass). */
function exchange(port: number, head: string): Promise<string> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1', () => s.write(head));
    let got = '';
    s.on('data', (d: Buffer) => (got += d.toString('latin1')));
    s.on('error', () => undefined);
    const timer = setTimeout(() => s.destroy(), 20_000);
    s.on('close', () => {
      clearTimeout(timer);
      resolve(got);
    });
  });
}

test('connections past maxConnectionsPerClient get 503 and are closed; a metric and a log line say so', async (t) => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const dir = await tempDir(t);
  const hub = await startHub({
    host: '127.0.0.1',
    port: 0,
    dbFile: join(dir, 'hub.db'),
    allowPrivateNetworks: true,
    maxConnectionsPerClient: 3,
    logger: createLogger('info', sink),
  });
  t.after(() => hub.close());
  const held: Socket[] = [];
  t.after(() => held.forEach((s) => s.destroy()));
  // Three idle connections (opened one after the other, so the hub accepts them first).
  for (let i = 0; i < 3; i++) held.push(await open(hub.port));
  const publishHead =
    'POST /hub HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/xml\r\nContent-Length: 5\r\n\r\n<a/>\n';
  for (const head of ['GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', publishHead]) {
    const answer = await exchange(hub.port, head);
    assert.match(answer, /^HTTP\/1\.1 503 /, answer);
    assert.match(answer, /\r\nConnection: close\r\n/i);
    assert.equal(answer.match(/HTTP\/1\.1 /g)?.length, 1, 'nothing of the request was answered');
  }
  // The held connections still work.
  const first = held[0]!;
  const onFirst = new Promise<string>((resolve) => {
    let got = '';
    first.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      if (got.includes('\r\n\r\n')) resolve(got);
    });
  });
  first.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  assert.match(await onFirst, /^HTTP\/1\.1 200 /);
  // One closes: the client may connect again (the hub sees the close asynchronously: poll).
  held.pop()!.destroy();
  await waitFor(
    async () =>
      /^HTTP\/1\.1 200 /.test(
        await exchange(
          hub.port,
          'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
        ),
      ),
    'a new connection is served after one closed',
  );
  held.pop()!.destroy(); // room for the metrics scrape below (undici keeps its own connection)
  await waitFor(
    async () =>
      (await metricValue(
        hub,
        'rsnotify_hub_requests_rejected_total',
        'status="503",reason="connections_per_client"',
      )) >= 2,
    'refusals counted',
  );
  const logged = lines.filter((l) => l.includes('"connection.refused"'));
  assert.ok(logged.length >= 1, 'the refusal is logged');
  assert.match(logged[0]!, /"client":"127\.0\.0\.1"/);
  assert.match(logged[0]!, /"limit":3/);
  // Each refusal is counted, but the log says it at most once per address per 10 s.
  assert.equal(logged.length, 1);
});

test('maxConnectionsPerClient 0 turns the limit off: 200 connections from one address are all served', async (t) => {
  const dir = await tempDir(t);
  const hub = await startHub({
    host: '127.0.0.1',
    port: 0,
    dbFile: join(dir, 'hub.db'),
    allowPrivateNetworks: true,
    maxConnectionsPerClient: 0,
    logLevel: 'silent',
  });
  t.after(() => hub.close());
  const held: Socket[] = [];
  t.after(() => held.forEach((s) => s.destroy()));
  for (let i = 0; i < 200; i++) held.push(await open(hub.port));
  assert.equal((await get(new URL('/healthz', hub.url).href)).status, 200);
});
