// The delivery sender against a real callback (node:http on 127.0.0.1, the party outside the hub):
// what a POST came to (WH-19), with the response body ignored and read only up to its limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOutboundAgent } from '@rsnotify/shared';
import { freePort } from '@rsnotify/service-kit/testing';
import { createSender, deliveryTarget } from '../src/outbound/index.js';

async function callback(
  t: { after(fn: () => unknown): void },
  answer: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void,
): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => answer(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => server.close(r)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function sender(t: { after(fn: () => unknown): void }, maxResponseBytes?: number) {
  const agent = createOutboundAgent({ allowPrivateNetworks: true, connections: 4 });
  t.after(() => agent.close());
  return createSender(agent, { timeoutMs: 5_000, maxResponseBytes });
}

test('WH-19: a 2xx is delivered; the body and headers reach the callback as given', async (t) => {
  let seen: { path?: string; type?: string; body?: string } = {};
  const origin = await callback(t, (req, res, body) => {
    seen = { path: req.url, type: req.headers['content-type'], body: body.toString() };
    res.writeHead(202).end('ignored');
  });
  const send = sender(t);
  const outcome = await send(
    deliveryTarget(`${origin}/cb?x=1`),
    { 'content-type': 'application/xml' },
    Buffer.from('<urlset/>'),
  );
  assert.deepEqual(outcome, { kind: 'delivered', status: 202 });
  assert.deepEqual(seen, { path: '/cb?x=1', type: 'application/xml', body: '<urlset/>' });
});

test('WH-19: 410 is gone, 500 and 302 are failures carrying their status', async (t) => {
  const statuses = [410, 500, 302];
  const origin = await callback(t, (_req, res) => {
    res.writeHead(statuses.shift()!, { location: '/elsewhere' }).end();
  });
  const send = sender(t);
  const body = Buffer.from('x');
  assert.deepEqual(await send(deliveryTarget(`${origin}/a`), {}, body), {
    kind: 'gone',
    status: 410,
  });
  assert.deepEqual(await send(deliveryTarget(`${origin}/a`), {}, body), {
    kind: 'failed',
    status: 500,
  });
  assert.deepEqual(await send(deliveryTarget(`${origin}/a`), {}, body), {
    kind: 'failed',
    status: 302,
  });
});

test('a response body over the limit is not read to its end: the status counts', async (t) => {
  const origin = await callback(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(Buffer.alloc(256 * 1024, 'a'));
  });
  const send = sender(t, 1024);
  const outcome = await send(deliveryTarget(`${origin}/big`), {}, Buffer.from('x'));
  assert.deepEqual(outcome, { kind: 'delivered', status: 200 });
});

test('no answer at all (connection refused) is a failure with the error code and no status', async (t) => {
  const port = await freePort(); // nothing listens there
  const send = sender(t);
  const outcome = await send(deliveryTarget(`http://127.0.0.1:${port}/cb`), {}, Buffer.from('x'));
  assert.deepEqual(outcome, { kind: 'failed', code: 'ECONNREFUSED' });
});
