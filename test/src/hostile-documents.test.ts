// The document reader against hostile input (HOSTILE_DOCUMENTS, one row per case it cites): both
// the whole-document parser and the streaming reader refuse each with its stable code. Parse times
// are the bench's business (test/bench/scenarios/hostile.ts); this asserts codes only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_STREAM_XML_LIMITS,
  parseDocument,
  streamDocument,
  isRsnotifyError,
} from '@rsnotify/shared';
import { HOSTILE_DOCUMENTS } from './harness/hostile-documents.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return isRsnotifyError(err) ? err.code : String(err);
  }
  return undefined;
}

async function streamCodeOf(
  input: string | Buffer,
  limits?: Readonly<Record<string, number>>,
): Promise<string | undefined> {
  const bytes = typeof input === 'string' ? Buffer.from(input) : input;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for (let off = 0; off < bytes.length; off += 64 * 1024)
      yield bytes.subarray(off, off + 64 * 1024);
  }
  try {
    for await (const _ of streamDocument(chunks(), limits ? { limits } : {})) {
      /* drain */
    }
  } catch (err) {
    return isRsnotifyError(err) ? err.code : String(err);
  }
  return undefined;
}

for (const doc of HOSTILE_DOCUMENTS) {
  test(`hostile document ${doc.name}: ${doc.covers} → ${doc.code}`, async () => {
    const input = doc.make();
    // Bytes go in as bytes (strict UTF-8); strings as the caller decoded them.
    const options = doc.limits ? { limits: doc.limits } : {};
    assert.equal(
      codeOf(() => parseDocument(input, options)),
      doc.code,
      'parseDocument',
    );
    assert.equal(await streamCodeOf(input, doc.limits), doc.code, 'streamDocument');
  });
}

test('the limits are configurable: a deeper document passes with maxDepth raised, huge lists stream', async () => {
  // Raw on purpose: an over-deep element nest and a streamed list of bare entries, not a real document.
  const NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"';
  const deep = `<urlset ${NS}><url><loc>http://a/</loc>${'<x>'.repeat(100)}${'</x>'.repeat(100)}</url></urlset>`;
  assert.equal(
    codeOf(() => parseDocument(deep)),
    'RS_XML_TOO_DEEP',
  );
  assert.equal(parseDocument(deep, { limits: { maxDepth: 200 } }).entries.length, 1);
  // The streaming reader counts no elements by default (memory stays flat whatever the count); the
  // same list is refused whole when a limit is set.
  assert.equal(DEFAULT_STREAM_XML_LIMITS.maxElements, Number.POSITIVE_INFINITY);
  const n = 50_000;
  async function* list(): AsyncGenerator<string> {
    yield `<urlset ${NS}>`;
    for (let i = 0; i < n; i += 10_000)
      yield '<url><loc>http://a/</loc></url>'.repeat(Math.min(10_000, n - i));
    yield '</urlset>';
  }
  let entries = 0;
  for await (const ev of streamDocument(list())) if (ev.type === 'entry') entries++;
  await assert.rejects(
    async () => {
      for await (const _ of streamDocument(list(), { limits: { maxElements: 10_000 } })) {
        /* drain */
      }
    },
    { code: 'RS_XML_TOO_MANY_ELEMENTS' },
  );
  assert.equal(entries, n);
});
