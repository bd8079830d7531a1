// The sliced readers (parseChangeNotificationInSlices on the hub's publish path, streamDocument for
// large lists) decode, check the prolog and parse slice by slice: the answers must be those of the
// one-piece parse, wherever a slice boundary falls (in a UTF-8 sequence, in `<!DOCTYPE`, in a
// comment's end marker). Unknown elements in a notification are skipped, not stored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DocumentError,
  RS_NS,
  SITEMAP_NS,
  checkChangeNotificationInSlices,
  parseChangeNotification,
  parseChangeNotificationInSlices,
  parseDocument,
  streamDocument,
  type DocumentErrorCode,
} from '@rsnotify/shared';

const SLICE = 64 * 1024;
// Raw on purpose: the parser's own tests read hand-written bytes, where slice boundaries fall at chosen bytes.
const OPEN = `<urlset xmlns="${SITEMAP_NS}" xmlns:rs="${RS_NS}">`;
const MD =
  '<rs:md capability="change-notification" from="2026-01-01T00:00:00Z" until="2026-01-01T00:00:01Z"/>';
const ENTRY = '<url><loc>http://a.test/r</loc><rs:md change="created"/></url>';

/** A prolog padded so that `marker` starts `shift` bytes before the first slice boundary. */
function prologWith(marker: string, shift: number): string {
  const head = '<?xml version="1.0" encoding="UTF-8"?>\n<!--';
  const pad = 'x'.repeat(SLICE - shift - head.length - '-->'.length);
  return `${head}${pad}-->${marker}`;
}

async function codeOf(run: () => Promise<unknown>): Promise<DocumentErrorCode | 'accepted'> {
  try {
    await run();
    return 'accepted';
  } catch (e) {
    if (e instanceof DocumentError) return e.code;
    throw e;
  }
}

async function streamAll(bytes: Buffer, chunk = SLICE): Promise<number> {
  let entries = 0;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for (let off = 0; off < bytes.length; off += chunk) yield bytes.subarray(off, off + chunk);
  }
  for await (const e of streamDocument(chunks())) if (e.type === 'entry') entries++;
  return entries;
}

/** The three readers' answers on the same bytes. */
async function allReaders(bytes: Buffer): Promise<string[]> {
  return [
    await codeOf(async () => parseChangeNotification(bytes)),
    await codeOf(() => parseChangeNotificationInSlices(bytes)),
    await codeOf(() => streamAll(bytes, 1000)),
  ];
}

test('a DOCTYPE split by a slice boundary is still RS_DOCTYPE_FORBIDDEN, in every reader', async () => {
  for (const shift of [1, 2, 3, 4, 5, 9]) {
    const xml = `${prologWith('<!DOCTYPE urlset [<!ENTITY a "b">]>', shift)}\n${OPEN}${MD}${ENTRY}</urlset>`;
    assert.deepEqual(
      await allReaders(Buffer.from(xml)),
      ['RS_DOCTYPE_FORBIDDEN', 'RS_DOCTYPE_FORBIDDEN', 'RS_DOCTYPE_FORBIDDEN'],
      `DOCTYPE ${shift} bytes before the boundary`,
    );
  }
});

test('a long prolog (comment and PI ends across slice boundaries) is read, not refused', async () => {
  for (const shift of [1, 2, 3]) {
    const xml = `${prologWith('<?pi a?>', shift)}\n<!-- c -->${OPEN}${MD}${ENTRY}</urlset>`;
    assert.deepEqual(await allReaders(Buffer.from(xml)), ['accepted', 'accepted', 'accepted']);
  }
  const n = await parseChangeNotificationInSlices(
    Buffer.from(`${prologWith('', 2)}${OPEN}${MD}${ENTRY}</urlset>`),
  );
  assert.equal(n.entries.length, 1);
});

test('RS_XML_NOT_UTF8 after the first slice, and a sequence split by a boundary is joined', async () => {
  const head = Buffer.from(`${OPEN}${MD}<url><loc>http://a.test/`);
  const pad = Buffer.alloc(SLICE - head.length - 1, 0x61); // the 3-byte € straddles the boundary
  const tail = Buffer.from(`</loc><rs:md change="created"/></url></urlset>`);
  const good = Buffer.concat([head, pad, Buffer.from('€'), tail]);
  assert.deepEqual(await allReaders(good), ['accepted', 'accepted', 'accepted']);
  const sliced = await parseChangeNotificationInSlices(good);
  assert.ok(sliced.entries[0]!.loc.endsWith('a€'));
  for (const bad of [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]]) {
    const bytes = Buffer.concat([
      head,
      pad,
      Buffer.from('</loc><rs:md change="created"/></url><!--'),
      Buffer.alloc(SLICE, 0x62), // the bad bytes sit in the third slice, in a comment
      Buffer.from(bad),
      Buffer.from('--></urlset>'),
    ]);
    assert.deepEqual(
      await allReaders(bytes),
      ['RS_XML_NOT_UTF8', 'RS_XML_NOT_UTF8', 'RS_XML_NOT_UTF8'],
      `bytes ${bad.join(' ')}`,
    );
  }
  // Truncated at the very end of the input: the flush refuses it.
  const truncated = Buffer.concat([
    Buffer.from(`${OPEN}${MD}${ENTRY}</urlset>`),
    Buffer.from([0xe2]),
  ]);
  assert.equal(await codeOf(() => parseChangeNotificationInSlices(truncated)), 'RS_XML_NOT_UTF8');
});

test('the sliced parse gives the same notification as the one-piece parse', async () => {
  const xml = Buffer.from(
    `\uFEFF${OPEN}${MD}${Array.from({ length: 3000 }, (_, i) => ENTRY.replace('/r<', `/r${i}<`)).join('\n')}</urlset>`,
  );
  assert.deepEqual(await parseChangeNotificationInSlices(xml), parseChangeNotification(xml));
});

test('unknown elements: a notification skips them (accepted, nothing stored); parseDocument keeps them', async () => {
  const many = `${OPEN}${MD}${'<x:b xmlns:x="urn:x"><c>t</c></x:b>'.repeat(20_000)}${ENTRY}</urlset>`;
  const n = await parseChangeNotificationInSlices(Buffer.from(many));
  assert.equal(n.entries.length, 1);
  assert.equal(n.extraElements, undefined);
  assert.equal(parseChangeNotification(many).extraElements, undefined);
  assert.equal(parseDocument(many).extraElements?.length, 20_000);
  // Inside an entry as well, and the entry's own fields are still read.
  const inEntry = `${OPEN}${MD}<url><loc>http://a.test/r</loc>${'<u/>'.repeat(5000)}<rs:md change="updated"/></url></urlset>`;
  const e = parseChangeNotification(inEntry).entries[0]!;
  assert.equal(e.extraElements, undefined);
  assert.equal(e.md?.change, 'updated');
});

test('unknown elements past maxElements are refused by count, whether kept or skipped', async () => {
  const flat = Buffer.from(`${OPEN}${MD}${'<b/>'.repeat(12_000)}${ENTRY}</urlset>`);
  const limits = { maxElements: 10_000 };
  assert.equal(
    await codeOf(() => parseChangeNotificationInSlices(flat, { limits })),
    'RS_XML_TOO_MANY_ELEMENTS',
  );
  assert.equal(
    await codeOf(async () => parseDocument(flat, { limits })),
    'RS_XML_TOO_MANY_ELEMENTS',
  );
});

/** Code and message of a refusal, or 'accepted'. */
async function answerOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'accepted';
  } catch (e) {
    if (e instanceof DocumentError) return `${e.code}: ${e.message}`;
    throw e;
  }
}

test('a one-slice body that is not UTF-8 is refused with the byte offset of the sliced decoder', async () => {
  const doc = `${OPEN}${MD}${ENTRY}</urlset>`;
  const cut = doc.indexOf('</urlset>');
  const withBytes = (bytes: number[]): Buffer =>
    Buffer.concat([
      Buffer.from(doc.slice(0, cut)),
      Buffer.from(bytes),
      Buffer.from(doc.slice(cut)),
    ]);
  const notUtf8 = 'RS_XML_NOT_UTF8: malformed XML: not valid UTF-8';
  for (const bad of [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]]) {
    for (const read of [parseChangeNotificationInSlices, checkChangeNotificationInSlices])
      assert.equal(await answerOf(() => read(withBytes(bad))), `${notUtf8} near byte 0`);
  }
  // Truncated at the very end: the decoder's flush refuses it, at the end of the input.
  const truncated = Buffer.concat([Buffer.from(doc), Buffer.from([0xe2])]);
  for (const read of [parseChangeNotificationInSlices, checkChangeNotificationInSlices])
    assert.equal(await answerOf(() => read(truncated)), `${notUtf8} near byte ${truncated.length}`);
  // A leading BOM is dropped, as the decoder drops it.
  const bom = Buffer.from(`\uFEFF${doc}`);
  assert.deepEqual(await parseChangeNotificationInSlices(bom), parseChangeNotification(doc));
});

test('checkChangeNotificationInSlices gives every answer parseChangeNotificationInSlices gives', async () => {
  const entry = (md: string): string => `<url><loc>http://a.test/r</loc>${md}</url>`;
  const bodies = [
    `${OPEN}${MD}${ENTRY}</urlset>`,
    `${OPEN}${MD}${entry('<rs:md change="updated" hash="md5:not-a-digest sha-256:x" length="1"/>')}</urlset>`,
    `${OPEN}${MD}${entry('<rs:md change="updated" hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6"/>')}</urlset>`,
    `${OPEN}${MD}${entry('<rs:md change="updated" length="-1"/>')}</urlset>`,
    `${OPEN}${MD}${entry('<rs:md change="moved"/>')}</urlset>`,
    `${OPEN}${MD}${entry('<rs:md change="updated" datetime="2026-02-30T00:00:00Z"/>')}</urlset>`,
    `${OPEN}${MD}${entry('<rs:ln rel="x" href="h" hash="md5:zz" modified="soon"/><rs:md change="updated"/>')}</urlset>`,
    `${OPEN}${MD}${entry('')}</urlset>`,
    `${OPEN}${MD}${entry('<lastmod>2026-01-01T00:00:00Z</lastmod><lastmod>x</lastmod><rs:md change="updated"/>')}</urlset>`,
    `${OPEN}${MD}${entry('<lastmod>2026-01-01T00:00:60Z</lastmod><rs:md change="updated" datetime="2026-01-01T00:00:00"/>')}</urlset>`,
    `${OPEN}${MD}${entry('<lastmod>2026-01-01T00:00:00.Z</lastmod><rs:md change="updated"/>')}</urlset>`,
    `${OPEN}${MD}${entry('<rs:md change="updated" datetime="2026-01-01T00:00:00.5Z "/>')}</urlset>`,
    `${OPEN}${MD}<url><rs:md change="updated"/></url></urlset>`,
    `${OPEN}<rs:md capability="change-notification" from="2026-01-01T00:00:01Z" until="2026-01-01T00:00:00Z"/></urlset>`,
    `${OPEN}<rs:md capability="change-notification" from="2026-01-01T00:00:00"/></urlset>`,
    `${OPEN}<rs:md capability="changelist" from="2026-01-01T00:00:00Z"/>${ENTRY}</urlset>`,
    `${OPEN}${MD}</urlset>`,
    `<sitemapindex xmlns="${SITEMAP_NS}" xmlns:rs="${RS_NS}">${MD}</sitemapindex>`,
    `<urlset>${MD}${ENTRY}</urlset>`,
    `${OPEN}${MD}${ENTRY}`,
    `<!DOCTYPE urlset>${OPEN}${MD}${ENTRY}</urlset>`,
  ];
  for (const body of bodies) {
    const bytes = Buffer.from(body);
    assert.equal(
      await answerOf(() => checkChangeNotificationInSlices(bytes)),
      await answerOf(() => parseChangeNotificationInSlices(bytes)),
      body,
    );
  }
});
