// Typed attribute values read character by character (RC-27 @length, RC-29 @pri): the edges of what
// they accept, pinned so a faster reader keeps the same answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DocumentError, RS_NS, SITEMAP_NS, parseDocument } from '@rsnotify/shared';

// Raw on purpose: the parser's own tests read hand-written bytes.
const entry = (inner: string): string =>
  `<urlset xmlns="${SITEMAP_NS}" xmlns:rs="${RS_NS}"><url><loc>http://a</loc>${inner}</url></urlset>`;

test('RC-27: @length is ASCII digits only, as a safe integer; anything else is RS_BAD_ATTRIBUTE', () => {
  const lengthOf = (v: string): number | undefined =>
    parseDocument(entry(`<rs:md length="${v}"/>`)).entries[0]!.md?.length;
  assert.equal(lengthOf('0'), 0);
  assert.equal(lengthOf(' 8876 '), 8876);
  assert.equal(lengthOf('9007199254740991'), 9007199254740991);
  for (const bad of ['', ' ', '1.5', '1e3', '+1', '0x10', '１２', '9007199254740992', '1 2']) {
    assert.throws(
      () => lengthOf(bad),
      (e: unknown) => e instanceof DocumentError && e.code === 'RS_BAD_ATTRIBUTE',
      JSON.stringify(bad),
    );
  }
});

test('RC-29: @pri is digits from 1 to 999999; any other value is kept raw, not refused', () => {
  const link = (pri: string): { pri?: number; extra?: Record<string, string> } =>
    parseDocument(entry(`<rs:ln rel="alternate" href="http://b" pri="${pri}"/>`)).entries[0]!
      .links[0]!;
  assert.equal(link(' 7 ').pri, 7);
  assert.equal(link('999999').pri, 999999);
  for (const raw of ['0', '1000000', '1.5', '', '٣']) {
    assert.equal(link(raw).pri, undefined, raw);
    assert.equal(link(raw).extra?.pri, raw);
  }
});
