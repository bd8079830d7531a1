// Discovery reads XML documents from the bytes the Source sent, with the same strict parser as every
// list (XML 1.0 §2.2, RN-1): a Source Description or Capability List that is not UTF-8 (0xFF, the
// overlong C0 AF, an encoded surrogate) is refused with RS_XML_NOT_UTF8, never decoded with U+FFFD
// and followed. The fake Source (a party outside the project) speaks real HTTP on 127.0.0.1.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRsnotifyError } from '@rsnotify/shared';
import { createHttpGetter } from '../src/mirror/index.js';
import { discoverSource, pageFetcherFrom } from '../src/discovery/index.js';
import { startSubscriber } from '../src/service.js';

const http = createHttpGetter({ allowPrivateNetworks: true });
const fetcher = pageFetcherFrom(http);
const servers: Server[] = [];
after(async () => {
  await http.close();
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const NS =
  'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"';

/** Bytes to put inside a `loc`: none (valid), or one of the probe's invalid sequences. */
const INVALID: Record<string, number[]> = {
  'byte 0xFF': [0xff],
  'overlong C0 AF': [0xc0, 0xaf],
  'encoded surrogate ED A0 80': [0xed, 0xa0, 0x80],
};

// Raw on purpose: the bytes under test are invalid UTF-8 spliced into the document.
function doc(head: string, body: string, bad: number[] | undefined): Buffer {
  const [before, after] = body.split('@BAD@') as [string, string];
  return Buffer.concat([
    Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n<urlset ${NS}>${head}${before}`),
    Buffer.from(bad ?? []),
    Buffer.from(`${after}</urlset>`),
  ]);
}

/**
 * A Source: /.well-known/resourcesync (Source Description) -> /capabilitylist.xml -> lists.
 * `badIn` puts the invalid bytes into one of the two documents (inside a `<loc>` path).
 */
async function fakeSource(badIn: 'description' | 'capability' | 'none', bad?: number[]) {
  let base = '';
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', base).pathname;
    let body: Buffer | undefined;
    if (path === '/.well-known/resourcesync')
      body = doc(
        '<rs:md capability="description"/>',
        `<url><loc>${base}/capabilitylist.xml</loc><rs:md capability="capabilitylist"/></url><url><loc>${base}/other-@BAD@.xml</loc><rs:md capability="capabilitylist"/></url>`,
        badIn === 'description' ? bad : undefined,
      );
    else if (path === '/capabilitylist.xml')
      body = doc(
        `<rs:ln rel="up" href="${base}/.well-known/resourcesync"/><rs:md capability="capabilitylist"/>`,
        `<url><loc>${base}/resourcelist-@BAD@.xml</loc><rs:md capability="resourcelist"/></url><url><loc>${base}/changelist.xml</loc><rs:md capability="changelist"/></url>`,
        badIn === 'capability' ? bad : undefined,
      );
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/xml', 'content-length': body.length });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return base;
}

async function refusal(
  url: string,
): Promise<{ message: string; refused: { url: string; code: string }[] }> {
  try {
    await discoverSource(url, fetcher);
  } catch (err) {
    assert.ok(isRsnotifyError(err, 'RSN_DISCOVERY_FAILED'), String(err));
    return {
      message: err.message,
      refused: (err.details.refused ?? []) as { url: string; code: string }[],
    };
  }
  assert.fail('discovery should have failed');
}

test('control: the same Source with valid UTF-8 is discovered', async () => {
  const base = await fakeSource('none');
  const d = await discoverSource(`${base}/.well-known/resourcesync`, fetcher);
  assert.equal(d.capabilityListUrl, `${base}/capabilitylist.xml`);
  assert.equal(d.resourceListUrl, `${base}/resourcelist-.xml`);
});

for (const [name, bytes] of Object.entries(INVALID)) {
  test(`RN-1 (XML 1.0 §2.2): a Source Description with ${name} is refused with RS_XML_NOT_UTF8`, async () => {
    const base = await fakeSource('description', bytes);
    const r = await refusal(`${base}/.well-known/resourcesync`);
    assert.deepEqual(
      r.refused.map((x) => [x.url, x.code]),
      [[`${base}/.well-known/resourcesync`, 'RS_XML_NOT_UTF8']],
    );
    assert.match(r.message, /refused: RS_XML_NOT_UTF8/);
  });

  test(`RN-1 (XML 1.0 §2.2): a Capability List with ${name} is refused with RS_XML_NOT_UTF8`, async () => {
    const base = await fakeSource('capability', bytes);
    for (const start of [`${base}/.well-known/resourcesync`, `${base}/capabilitylist.xml`]) {
      const r = await refusal(start);
      assert.ok(
        r.refused.length > 0 &&
          r.refused.every(
            (x) => x.url === `${base}/capabilitylist.xml` && x.code === 'RS_XML_NOT_UTF8',
          ),
        JSON.stringify(r.refused),
      );
    }
  });
}

test("the daemon shows the refusal and its code as the Source's last error", async (t) => {
  const base = await fakeSource('capability', INVALID['byte 0xFF']);
  const dir = await mkdtemp(join(tmpdir(), 'rsn-discovery-bytes-'));
  const sub = await startSubscriber({
    listen: { host: '127.0.0.1', port: 0 },
    dataDir: join(dir, 'data'),
    allowPrivateNetworks: true,
    logLevel: 'silent',
    sources: [{ name: 'bad', url: `${base}/.well-known/resourcesync`, mirrorDir: join(dir, 'm') }],
  });
  t.after(async () => {
    await sub.close();
    await rm(dir, { recursive: true, force: true });
  });
  const deadline = Date.now() + 60_000;
  let lastError = '';
  while (Date.now() < deadline) {
    lastError = (await sub.status())[0]?.lastError ?? '';
    if (lastError.includes('discovery failed')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.match(lastError, /capabilitylist\.xml refused: RS_XML_NOT_UTF8/);
  const s = (await sub.status())[0]!;
  assert.equal(s.mode, 'unknown', 'nothing was followed from the refused document');
});
