// Promise 4 (nothing on a private network unless configured): address classification and the
// guarded undici connector, exercised with real requests to a 127.0.0.1 server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import {
  OutboundAddressError,
  checkOutboundUrl,
  classifyAddress,
  createOutboundAgent,
  isRsnotifyError,
} from '@rsnotify/shared';

test('classifyAddress: special ranges (loopback, private, link-local, CGNAT, documentation, multicast, IPv4-mapped IPv6)', () => {
  const table: [string, 'public' | 'special'][] = [
    ['127.0.0.1', 'special'],
    ['127.255.255.254', 'special'],
    ['10.1.2.3', 'special'],
    ['172.16.0.1', 'special'],
    ['172.31.255.255', 'special'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'special'],
    ['169.254.169.254', 'special'],
    ['100.64.0.1', 'special'],
    ['0.0.0.0', 'special'],
    ['192.0.2.1', 'special'],
    ['198.18.0.1', 'special'],
    ['224.0.0.1', 'special'],
    ['255.255.255.255', 'special'],
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    ['::1', 'special'],
    ['::', 'special'],
    ['fe80::1', 'special'],
    ['fe80::1%eth0', 'special'],
    ['fc00::1', 'special'],
    ['fd12:3456::1', 'special'],
    ['ff02::1', 'special'],
    ['2001:db8::1', 'special'],
    ['2606:4700::1111', 'public'],
    ['::ffff:127.0.0.1', 'special'],
    ['::FFFF:10.0.0.1', 'special'],
    ['::ffff:8.8.8.8', 'public'],
    ['[::1]', 'special'],
    ['64:ff9b::7f00:1', 'special'],
    ['not-an-ip', 'special'],
    ['', 'special'],
  ];
  for (const [address, want] of table) assert.equal(classifyAddress(address), want, address);
});

test('checkOutboundUrl: http(s) only, no credentials, private IP literals and localhost refused unless allowed', () => {
  const deny = { allowPrivateNetworks: false };
  const codeOf = (url: string): string | undefined => {
    try {
      checkOutboundUrl(url, deny);
      return undefined;
    } catch (e) {
      return isRsnotifyError(e) ? e.code : 'other';
    }
  };
  assert.equal(codeOf('http://example.com/x'), undefined);
  assert.equal(codeOf('ftp://example.com/x'), 'RSN_OUTBOUND_BAD_URL');
  assert.equal(codeOf('http://user:pw@example.com/'), 'RSN_OUTBOUND_BAD_URL');
  assert.equal(codeOf('relative/path'), 'RSN_OUTBOUND_BAD_URL');
  assert.equal(codeOf('http://127.0.0.1:8080/'), 'RSN_OUTBOUND_PRIVATE_ADDRESS');
  assert.equal(codeOf('http://[::ffff:7f00:1]/'), 'RSN_OUTBOUND_PRIVATE_ADDRESS');
  assert.equal(codeOf('http://localhost/'), 'RSN_OUTBOUND_PRIVATE_ADDRESS');
  assert.equal(
    checkOutboundUrl('http://127.0.0.1/', { allowPrivateNetworks: true }).hostname,
    '127.0.0.1',
  );
});

async function startServer(t: { after(fn: () => unknown): void }): Promise<string> {
  const server: Server = createServer((req, res) => {
    res.setHeader('content-type', 'text/plain');
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

async function failureCode(
  url: string,
  agent: ReturnType<typeof createOutboundAgent>,
): Promise<unknown> {
  try {
    const res = await request(url, { dispatcher: agent });
    await res.body.dump();
    return `status ${res.statusCode}`;
  } catch (err) {
    return err;
  }
}

test('createOutboundAgent({allowPrivateNetworks:false}): a real request to 127.0.0.1 fails with RSN_OUTBOUND_PRIVATE_ADDRESS', async (t) => {
  const url = await startServer(t);
  const agent = createOutboundAgent({ allowPrivateNetworks: false });
  t.after(() => agent.close());
  const err = await failureCode(url, agent);
  assert.ok(err instanceof OutboundAddressError, `got ${String(err)}`);
  assert.equal(err.code, 'RSN_OUTBOUND_PRIVATE_ADDRESS');
  // A host name that resolves to loopback is refused after resolution, by the connector.
  const named = await failureCode(url.replace('127.0.0.1', 'localhost'), agent);
  assert.ok(isRsnotifyError(named, 'RSN_OUTBOUND_PRIVATE_ADDRESS'), `got ${String(named)}`);
});

test('createOutboundAgent({allowPrivateNetworks:true}): the same request succeeds', async (t) => {
  const url = await startServer(t);
  const agent = createOutboundAgent({ allowPrivateNetworks: true });
  t.after(() => agent.close());
  const res = await request(url, { dispatcher: agent });
  assert.equal(res.statusCode, 200);
  assert.equal(await res.body.text(), 'ok');
});
