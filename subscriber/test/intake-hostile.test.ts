// Hostile input at the subscriber's callback, one row per case (the same probe as the hub's): the
// refusal status only; timing is for test/bench. Also: the database is created 0600 in a 0700
// directory, an impossible path fails with its errno instead of hanging, and log lines show a
// callback URL only as origin + hash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createIntake } from '../src/intake/index.js';
import { createLogger, createMetrics } from '../src/observability/index.js';
import { openSqliteStore } from '../src/store/index.js';
import { DEFAULT_LEASE_POLICY } from '../src/subscription/index.js';

const MAX = 64 * 1024;

async function setup(t: { after: (fn: () => Promise<void> | void) => void }) {
  const dir = await mkdtemp(join(tmpdir(), 'rsn-hostile-'));
  const file = join(dir, 'data', 'subscriber.db');
  const repo = openSqliteStore({ file });
  const source = await repo.ensureSource('s', 'http://source.test/');
  const intake = createIntake({
    repo,
    logger: pino({ level: 'silent' }),
    metrics: createMetrics(),
    clock: Date.now,
    leasePolicy: DEFAULT_LEASE_POLICY,
    maxBodyBytes: MAX,
    basePath: '',
    sourceName: () => 's',
    onDelivered: () => undefined,
    onSubscriptionChanged: () => undefined,
  });
  const server = createServer(intake.listener);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  t.after(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await repo.close();
    await rm(dir, { recursive: true, force: true });
  });
  const token = `tok${Math.random().toString(36).slice(2)}`;
  await repo.insertSubscription({
    sourceId: source.id,
    hub: 'http://hub.test/',
    topic: 'http://source.test/topic',
    callbackToken: token,
    callbackUrl: `http://127.0.0.1:${port}/callback/${token}`,
    state: 'active',
    requestedAt: Date.now(),
    attempt: 1,
    requestedLeaseSeconds: 600,
    leaseExpiresAt: Date.now() + 600_000,
  });
  return { port, token, dir, file, repo, sourceId: source.id };
}

/** Sends a raw request (head, then body in 16 KiB chunks) and returns the status line's code. */
function raw(
  port: number,
  head: string,
  body: Buffer = Buffer.alloc(0),
): Promise<number | undefined> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    let got = '';
    const done = (): void => {
      s.destroy();
      resolve(
        /^HTTP\/1\.1 (\d{3})/.exec(got) ? Number(/^HTTP\/1\.1 (\d{3})/.exec(got)![1]) : undefined,
      );
    };
    const timer = setTimeout(done, 15_000);
    s.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      if (got.includes('\r\n\r\n')) {
        clearTimeout(timer);
        setTimeout(done, 20);
      }
    });
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(timer);
      setTimeout(done, 5);
    });
    s.on('connect', () => {
      s.write(head);
      for (let off = 0; off < body.length; off += 16 * 1024)
        s.write(body.subarray(off, off + 16 * 1024));
    });
  });
}

interface Row {
  readonly covers: string;
  readonly status: number;
  readonly request: (port: number, token: string) => Promise<number | undefined>;
}

const head = (port: number, path: string, extra: string[]): string =>
  [
    `POST ${path} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    'Content-Type: application/xml',
    ...extra,
    '',
    '',
  ].join('\r\n');

const ROWS: Row[] = [
  {
    covers: 'probe: max+1 bytes with Content-Length get their 413',
    status: 413,
    request: (p, tok) =>
      raw(
        p,
        head(p, `/callback/${tok}`, [`Content-Length: ${MAX + 1}`]),
        Buffer.alloc(MAX + 1, 0x20),
      ),
  },
  {
    covers: 'probe: max+1 bytes chunked get their 413 (counted while read)',
    status: 413,
    request: (p, tok) =>
      raw(
        p,
        head(p, `/callback/${tok}`, ['Transfer-Encoding: chunked']),
        Buffer.concat([
          Buffer.from(`${(MAX + 1).toString(16)}\r\n`),
          Buffer.alloc(MAX + 1, 0x20),
          Buffer.from('\r\n0\r\n\r\n'),
        ]),
      ),
  },
  {
    covers: 'an unknown callback token is 404 without reading the body',
    status: 404,
    request: (p) =>
      raw(p, head(p, '/callback/nope', [`Content-Length: ${MAX}`]), Buffer.alloc(MAX, 0x20)),
  },
  {
    covers: 'RFC 9112 §3.2: two Host headers',
    status: 400,
    request: (p, tok) =>
      raw(p, head(p, `/callback/${tok}`, ['Host: other.test', 'Content-Length: 0'])),
  },
  {
    covers: 'RFC 9112 §6.1: Transfer-Encoding gzip, chunked',
    status: 501,
    request: (p, tok) =>
      raw(
        p,
        head(p, `/callback/${tok}`, ['Transfer-Encoding: gzip, chunked']),
        Buffer.from('0\r\n\r\n'),
      ),
  },
];

test('hostile requests at the callback get their refusal status (table); max+1 answered 10 of 10', async (t) => {
  const h = await setup(t);
  for (const row of ROWS) {
    const attempts = row.status === 413 ? 10 : 1;
    for (let i = 0; i < attempts; i++)
      assert.equal(await row.request(h.port, h.token), row.status, `${row.covers} (attempt ${i})`);
  }
});

test('the database is created 0600 (with its WAL and SHM) in a directory created 0700', async (t) => {
  const h = await setup(t);
  assert.equal((await stat(join(h.dir, 'data'))).mode & 0o777, 0o700);
  for (const f of ['subscriber.db', 'subscriber.db-wal', 'subscriber.db-shm']) {
    assert.equal((await stat(join(h.dir, 'data', f))).mode & 0o777, 0o600, f);
  }
});

test('probe: an impossible database path fails with its errno instead of hanging (/proc, a file as directory)', async () => {
  assert.throws(
    () => openSqliteStore({ file: '/proc/nope/subscriber.db' }),
    /cannot open database .*ENOENT/,
  );
  assert.throws(
    () => openSqliteStore({ file: '/etc/hostname/subscriber.db' }),
    /cannot open database .*ENOTDIR/,
  );
});

test('subscriber log lines show a callback URL as origin and path hash only', () => {
  const lines: string[] = [];
  const logger = createLogger(
    'info',
    new Writable({
      write(c, _e, d) {
        lines.push(String(c));
        d();
      },
    }) as never,
  );
  logger.info(
    {
      event: 'subscription.requested',
      callback: 'http://mirror.test:8080/callback/tok-secret-123',
      callbackToken: 'tok-secret-123',
    } as never, // fields no declared event has: what a careless caller might pass along
    'x',
  );
  assert.equal(lines.length, 1);
  assert.ok(!lines[0]!.includes('tok-secret-123'), lines[0]);
  assert.match(lines[0]!, /"callback":"http:\/\/mirror\.test:8080\/\[path:[0-9a-f]{12}\]"/);
});

test('a POST to a callback reaches the delivery endpoint whatever form its target takes; other requests reach the app', async (t) => {
  const h = await setup(t);
  const body = Buffer.from('<urlset/>');
  const post = (target: string): Promise<number | undefined> =>
    raw(h.port, head(h.port, target, [`Content-Length: ${body.length}`]), body);
  assert.equal(await post(`/callback/${h.token}?from=query`), 202);
  assert.equal(await post(`http://127.0.0.1:${h.port}/callback/${h.token}`), 202);
  assert.equal((await h.repo.listOpenInbox(h.sourceId)).length, 2);
  // Not a token's callback path, or not a POST: the app answers as before.
  assert.equal(await post(`/callback/${h.token}/`), 404);
  assert.equal(await post('/callback/'), 404);
  const plain = (method: string, path: string): Promise<number | undefined> =>
    raw(
      h.port,
      `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${h.port}\r\nContent-Length: 0\r\n\r\n`,
    );
  assert.equal(await plain('PUT', `/callback/${h.token}`), 404);
  assert.equal(await plain('GET', '/healthz'), 200);
  assert.equal((await h.repo.listOpenInbox(h.sourceId)).length, 2);
});
