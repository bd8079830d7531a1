// Asking a hub whether it bridges a Source (`discover --hub`): the hub is a party the subscriber
// does not control, so a broken answer is refused with RSN_BRIDGE_LOOKUP_FAILED, never a crash of
// another kind; a 404 for one URL moves on to the next. The hub here is a fake speaking real HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lookupBridgedChannel } from '../src/discovery/index.js';
import { createHttpGetter } from '../src/mirror/index.js';
import { SubscriberError } from '../src/errors/index.js';

const SOURCE = 'http://source.test/';
const OTHER = 'http://source.test/capabilitylist.xml';

async function fakeHub(
  t: { after(fn: () => unknown): void },
  answer: (source: string) => { status: number; body: string },
): Promise<string> {
  const server = createServer((req, res) => {
    const source = new URL(req.url ?? '/', 'http://x').searchParams.get('source') ?? '';
    const { status, body } = answer(source);
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => server.close(r)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hub`;
}

const http = createHttpGetter({ allowPrivateNetworks: true });

test('bridge lookup: 404 for the first URL, the channel for the next one', async (t) => {
  const hub = await fakeHub(t, (source) =>
    source === OTHER
      ? { status: 200, body: JSON.stringify({ name: 'ds', hub: 'http://h.test/hub', topic: 'T' }) }
      : { status: 404, body: '{}' },
  );
  assert.deepEqual(await lookupBridgedChannel(http, hub, [SOURCE, undefined, OTHER]), {
    name: 'ds',
    hub: 'http://h.test/hub',
    topic: 'T',
    matched: OTHER,
  });
  assert.equal(await lookupBridgedChannel(http, hub, [SOURCE]), undefined);
});

test('bridge lookup: a broken hub answer is RSN_BRIDGE_LOOKUP_FAILED', async (t) => {
  const rows: { name: string; status: number; body: string }[] = [
    { name: 'server error', status: 500, body: '' },
    { name: 'not JSON', status: 200, body: '<html>' },
    { name: 'JSON null', status: 200, body: 'null' },
    { name: 'no topic', status: 200, body: '{"hub":"http://h.test/hub"}' },
    { name: 'topic not a string', status: 200, body: '{"hub":"http://h.test/hub","topic":1}' },
  ];
  for (const row of rows) {
    const hub = await fakeHub(t, () => row);
    await assert.rejects(lookupBridgedChannel(http, hub, [SOURCE]), (err: unknown) => {
      assert.ok(err instanceof SubscriberError, row.name);
      assert.equal(err.code, 'RSN_BRIDGE_LOOKUP_FAILED', row.name);
      return true;
    });
  }
});
