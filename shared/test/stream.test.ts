// streamDocument gives the same model objects as parseDocument (fixtures, a generated list, any
// chunking, multi-byte characters split across chunks), reads lazily, and keeps the same safety.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DocumentError,
  RS_NS,
  SITEMAP_NS,
  parseDocument,
  streamDocument,
  type DocumentErrorCode,
  type DocumentHeader,
  type DocumentStreamEvent,
  type Entry,
  type ParseOptions,
} from '@rsnotify/shared';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/resourcesync/', import.meta.url));

async function* chunked(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function collect(
  chunks: AsyncIterable<Uint8Array | string>,
  options?: ParseOptions,
): Promise<{ events: DocumentStreamEvent[]; header: DocumentHeader; entries: Entry[] }> {
  const events: DocumentStreamEvent[] = [];
  for await (const ev of streamDocument(chunks, options)) events.push(ev);
  const headers = events.filter((e) => e.type === 'header');
  assert.equal(headers.length, 1, 'exactly one header event');
  const entries = events.flatMap((e) => (e.type === 'entry' ? [e.entry] : []));
  return { events, header: (headers[0] as { header: DocumentHeader }).header, entries };
}

async function streamRejects(
  chunks: AsyncIterable<Uint8Array | string>,
  code: DocumentErrorCode,
  options?: ParseOptions,
): Promise<void> {
  await assert.rejects(
    collect(chunks, options),
    (e: unknown) => e instanceof DocumentError && e.code === code,
  );
}

// Raw on purpose: the parser's own tests read hand-written bytes, not the serializer's output.
function generatedList(n: number): string {
  let xml =
    `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="${SITEMAP_NS}" xmlns:rs="${RS_NS}">\n` +
    '<rs:md capability="changelist" from="2026-11-22T00:00:00Z"/>\n<rs:ln rel="up" href="http://example.com/caps.xml"/>\n';
  for (let i = 0; i < n; i++) {
    const us = String(i % 1_000_000).padStart(6, '0');
    xml +=
      `<url><loc>http://example.com/ré/${i}?a=1&amp;b=2</loc><lastmod>2026-11-22T00:00:01.${us}Z</lastmod>` +
      `<rs:md change="${['created', 'updated', 'deleted'][i % 3]}" datetime="2026-11-22T00:00:01.${us}Z" hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6" length="${i}" type="text/plain"/></url>\n`;
  }
  return `${xml}</urlset>\n`;
}

test('stream = whole document: every fixture document, in 7-byte chunks (multi-byte characters split)', async () => {
  let compared = 0;
  for (const dir of [
    'spec-examples-v1.1',
    'spec-examples-v1.0',
    'validator-2014',
    'simulator-captures',
    'ruby-resync',
    'destination-cases',
    'resync-testdata',
    'notifications',
  ]) {
    const root = join(FIXTURES, dir);
    const stack = [root];
    while (stack.length > 0) {
      const d = stack.pop()!;
      for (const name of await readdir(d)) {
        const p = join(d, name);
        if ((await stat(p)).isDirectory()) {
          stack.push(p);
          continue;
        }
        if (!name.endsWith('.xml') && name !== 'resourcesync') continue;
        const text = await readFile(p, 'utf8');
        const options = { baseUrl: `http://fixtures.test/${relative(FIXTURES, p)}` };
        let whole;
        try {
          whole = parseDocument(text, options);
        } catch (err) {
          // The stream must refuse the same files with the same code.
          await streamRejects(chunked(text, 7), (err as DocumentError).code, options);
          continue;
        }
        const { header, entries } = await collect(chunked(text, 7), options);
        assert.deepStrictEqual(entries, whole.entries, p);
        assert.deepStrictEqual(
          header,
          {
            root: whole.root,
            kind: whole.kind,
            capability: whole.capability,
            md: whole.md,
            links: whole.links,
          },
          p,
        );
        compared++;
      }
    }
  }
  assert.ok(compared >= 130, `compared ${compared}`);
});

test('stream = whole document: a generated 5,000-entry Change List, byte and string chunks of several sizes', async () => {
  const xml = generatedList(5_000);
  const whole = parseDocument(xml);
  for (const size of [1, 13, 4096, 65_536]) {
    const { entries, header } = await collect(chunked(xml, size));
    assert.equal(entries.length, 5_000);
    assert.deepStrictEqual(entries, whole.entries, `chunk ${size}`);
    assert.equal(header.kind, 'change-list');
  }
  async function* strings(): AsyncGenerator<string> {
    for (let i = 0; i < xml.length; i += 999) yield xml.slice(i, i + 999);
  }
  assert.deepStrictEqual((await collect(strings())).entries, whole.entries);
});

test('stream: the header comes before the first entry, or at the end for a document without entries', async () => {
  const { events } = await collect(chunked(generatedList(3), 50));
  assert.deepEqual(
    events.map((e) => e.type),
    ['header', 'entry', 'entry', 'entry'],
  );
  const empty = await collect(
    chunked(
      `<urlset xmlns="${SITEMAP_NS}" xmlns:rs="${RS_NS}"><rs:md capability="resourcelist" at="2026-01-01"/></urlset>`,
      10,
    ),
  );
  assert.deepEqual(
    empty.events.map((e) => e.type),
    ['header'],
  );
  assert.equal(empty.header.kind, 'resource-list');
});

test('stream: input is read lazily (memory stays flat): the first entry arrives after a few chunks of a large list', async () => {
  const xml = generatedList(20_000);
  let pulled = 0;
  async function* counting(): AsyncGenerator<Uint8Array> {
    for await (const c of chunked(xml, 16_384)) {
      pulled++;
      yield c;
    }
  }
  const total = Math.ceil(Buffer.byteLength(xml) / 16_384);
  const it = streamDocument(counting());
  let seen = 0;
  for await (const ev of it) {
    if (ev.type === 'entry' && ++seen === 1) break;
  }
  assert.ok(
    pulled <= 2 && total > 100,
    `pulled ${pulled} of ${total} chunks before the first entry`,
  );
});

test('stream safety: DOCTYPE, malformed, truncated, invalid UTF-8, and oversized input are refused', async () => {
  await streamRejects(
    chunked(
      `<!DOCTYPE urlset [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><urlset xmlns="${SITEMAP_NS}"><url><loc>&b;</loc></url></urlset>`,
      5,
    ),
    'RS_DOCTYPE_FORBIDDEN',
  );
  await streamRejects(chunked('\n<?xml version="1.0"?><urlset/>', 4), 'RS_XML_MALFORMED');
  await streamRejects(chunked(generatedList(10).slice(0, -40), 64), 'RS_XML_MALFORMED');
  await streamRejects(
    (async function* () {
      yield Buffer.from(`<urlset xmlns="${SITEMAP_NS}"><url><loc>http://a/`);
      yield Uint8Array.of(0xff, 0xfe);
      yield Buffer.from('</loc></url></urlset>');
    })(),
    'RS_XML_NOT_UTF8',
  );
  await streamRejects(chunked('<feed xmlns="http://www.w3.org/2005/Atom"/>', 8), 'RS_UNKNOWN_ROOT');
  // maxBytes is counted as bytes arrive: an endless input fails without being read to the end.
  let pulled = 0;
  async function* endless(): AsyncGenerator<Uint8Array> {
    yield Buffer.from(`<urlset xmlns="${SITEMAP_NS}">`);
    for (;;) {
      pulled++;
      yield Buffer.from('<url><loc>http://example.com/x</loc></url>'.repeat(100));
    }
  }
  await streamRejects(endless(), 'RS_TOO_LARGE', { maxBytes: 100_000 });
  assert.ok(pulled < 30, `stopped after ${pulled} chunks`);
});
