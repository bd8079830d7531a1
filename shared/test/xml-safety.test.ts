// The safety rules of every parse entry point (promise 4: no input crashes a process; nothing is
// fetched). ResourceSync never needs a DTD, so any DOCTYPE is refused before parsing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DocumentError,
  RS_NS,
  SITEMAP_NS,
  parseChangeNotification,
  parseDocument,
  type DocumentErrorCode,
} from '@rsnotify/shared';

// Raw on purpose: malformed and hostile bytes, which no serializer writes.
const OPEN = `<urlset xmlns="${SITEMAP_NS}" xmlns:rs="${RS_NS}">`;

function rejects(fn: () => unknown, code: DocumentErrorCode): void {
  assert.throws(fn, (e: unknown) => e instanceof DocumentError && e.code === code);
}

test('DOCTYPE bomb (billion laughs) is RS_DOCTYPE_FORBIDDEN, refused before any parsing', () => {
  let dtd = '<!ENTITY lol0 "lol">';
  for (let i = 1; i < 10; i++) dtd += `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`;
  const xml = `<?xml version="1.0"?>\n<!DOCTYPE urlset [${dtd}]>\n${OPEN}<url><loc>&lol9;</loc></url></urlset>`;
  rejects(() => parseDocument(xml), 'RS_DOCTYPE_FORBIDDEN');
  rejects(() => parseChangeNotification(xml), 'RS_DOCTYPE_FORBIDDEN');
});

test('external entity (XXE) is RS_DOCTYPE_FORBIDDEN and nothing is read', () => {
  rejects(
    () =>
      parseDocument(
        `<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${OPEN}<url><loc>&xxe;</loc></url></urlset>`,
      ),
    'RS_DOCTYPE_FORBIDDEN',
  );
  rejects(
    () => parseDocument(`<!doctype urlset SYSTEM "http://127.0.0.1:1/evil.dtd">${OPEN}</urlset>`),
    'RS_DOCTYPE_FORBIDDEN',
  );
  // After comments and processing instructions in the prolog, too.
  rejects(
    () =>
      parseDocument(`<?xml version="1.0"?><!-- hi --><?pi x?>\n<!DOCTYPE urlset>${OPEN}</urlset>`),
    'RS_DOCTYPE_FORBIDDEN',
  );
  // Later in the document a DOCTYPE is not well-formed XML at all.
  rejects(() => parseDocument(`${OPEN}<!DOCTYPE urlset></urlset>`), 'RS_XML_MALFORMED');
});

test('an undefined entity reference is RS_XML_MALFORMED; predefined and numeric references decode', () => {
  rejects(
    () => parseDocument(`${OPEN}<url><loc>http://a/&nbsp;</loc></url></urlset>`),
    'RS_XML_MALFORMED',
  );
  const doc = parseDocument(
    `${OPEN}<url><loc>http://a/?x=1&amp;y=&#x41;&#66;&lt;&gt;&quot;&apos;</loc></url></urlset>`,
  );
  assert.equal(doc.entries[0]!.loc, `http://a/?x=1&y=AB<>"'`);
});

test('RC-4: oversized input is RS_TOO_LARGE, counted in UTF-8 bytes; the default limit is 50 MiB', () => {
  const body = `${OPEN}<url><loc>http://a/${'ü'.repeat(1000)}</loc></url></urlset>`;
  const chars = body.length;
  const bytes = Buffer.byteLength(body);
  assert.ok(bytes > chars);
  rejects(() => parseDocument(body, { maxBytes: chars + 10 }), 'RS_TOO_LARGE');
  assert.equal(parseDocument(body, { maxBytes: bytes }).entries.length, 1);
  const big = `${OPEN}<!--${' '.repeat(52_428_800)}--></urlset>`;
  rejects(() => parseDocument(big), 'RS_TOO_LARGE');
});

test('truncated and otherwise malformed XML is RS_XML_MALFORMED with a line number', () => {
  const full = `<?xml version="1.0"?>\n${OPEN}\n<url><loc>http://a/1</loc></url>\n</urlset>`;
  for (const cut of [full.length - 3, full.length - 12, 60])
    rejects(() => parseDocument(full.slice(0, cut)), 'RS_XML_MALFORMED');
  rejects(() => parseDocument(`${OPEN}</urlset><urlset/>`), 'RS_XML_MALFORMED');
  rejects(() => parseDocument(`${OPEN}<url><loc>a</url></loc></urlset>`), 'RS_XML_MALFORMED');
  rejects(() => parseDocument(`${OPEN}<url><loc>a</loc><x:y/></url></urlset>`), 'RS_XML_MALFORMED');
  try {
    parseDocument(`<?xml version="1.0"?>\n${OPEN}\n<url>\n<loc>a</loc>\n</urlx>\n</urlset>`);
    assert.fail('expected an error');
  } catch (err) {
    assert.ok(err instanceof DocumentError);
    assert.equal(err.details.line, 5);
    assert.match(err.message, /5:\d+/);
  }
});
