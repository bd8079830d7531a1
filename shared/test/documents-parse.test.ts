// parseDocument / parseChangeNotification / entryToChange / notificationChannels on hand-written
// documents: kind selection, tolerance, and every refusal with its code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DocumentError,
  RS_NS,
  SITEMAP_NS,
  entryToChange,
  notificationChannels,
  parseChangeNotification,
  parseDocument,
  type CapabilityList,
  type DocumentErrorCode,
} from '@rsnotify/shared';

// Raw on purpose: the parser's own tests read hand-written bytes, not the serializer's output.
const NS = `xmlns="${SITEMAP_NS}" xmlns:rs="${RS_NS}"`;
const urlset = (body: string, attrs = ''): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset ${NS}${attrs}>\n${body}\n</urlset>\n`;
const index = (body: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex ${NS}>\n${body}\n</sitemapindex>\n`;

function rejects(fn: () => unknown, code: DocumentErrorCode, message?: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof DocumentError, `expected DocumentError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
}

const NOTIFICATION = urlset(`
  <rs:ln rel="up" href="http://example.com/dataset1/capabilitylist.xml"/>
  <rs:md capability="change-notification" from="2013-01-03T00:00:00Z" until="2013-01-03T00:10:00Z"/>
  <url>
    <loc>http://example.com/res1</loc>
    <lastmod>2013-01-01T13:03:00Z</lastmod>
    <rs:md change="created" datetime="2013-01-03T00:07:22Z" hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6" length="8876" type="application/pdf"/>
  </url>
  <url>
    <loc>http://example.com/res2</loc>
    <rs:md change="updated" datetime="2013-01-03T00:08:52Z"
           hash="md5:1e0d5cb8ef6ba40c99b14c0237be735e
                 sha-256:854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784" length="14599" type="text/html"/>
  </url>`);

test('RC-5, RC-6: root element plus rs:md/@capability select the kind', () => {
  const cases: [string, string, string][] = [
    ['urlset', 'description', 'source-description'],
    ['sitemapindex', 'description', 'source-description-index'],
    ['urlset', 'capabilitylist', 'capability-list'],
    ['urlset', 'resourcelist', 'resource-list'],
    ['sitemapindex', 'resourcelist', 'resource-list-index'],
    ['urlset', 'resourcedump', 'resource-dump'],
    ['sitemapindex', 'resourcedump', 'resource-dump-index'],
    ['urlset', 'resourcedump-manifest', 'resource-dump-manifest'],
    ['urlset', 'changelist', 'change-list'],
    ['sitemapindex', 'changelist', 'change-list-index'],
    ['urlset', 'changedump', 'change-dump'],
    ['sitemapindex', 'changedump', 'change-dump-index'],
    ['urlset', 'changedump-manifest', 'change-dump-manifest'],
    ['urlset', 'change-notification', 'change-notification'],
    ['urlset', 'changelist-archive', 'archive'],
    ['sitemapindex', 'resourcelist-archive', 'archive-index'],
    ['urlset', 'no-such-capability', 'sitemap'],
    ['sitemapindex', 'no-such-capability', 'sitemap-index'],
  ];
  for (const [root, capability, kind] of cases) {
    const xml =
      root === 'urlset'
        ? urlset(`<rs:md capability="${capability}"/>`)
        : index(`<rs:md capability="${capability}"/>`);
    const doc = parseDocument(xml);
    assert.equal(doc.kind, kind, `${root} + ${capability}`);
    assert.equal(doc.capability, capability);
    assert.equal(doc.root, root);
  }
  const plain = parseDocument(urlset('<url><loc>http://a/1</loc></url>'));
  assert.equal(plain.kind, 'sitemap');
  assert.equal(plain.capability, '');
  assert.deepEqual(plain.md, {});
});

test('RC-1: elements match by namespace URI, not by prefix', () => {
  const xml = `<?xml version="1.0"?>
<sm:urlset xmlns:sm="${SITEMAP_NS}" xmlns:x="${RS_NS}">
  <x:md capability="changelist" from="2020-01-01T00:00:00Z"/>
  <sm:url><sm:loc>http://a/1</sm:loc><x:md change="deleted"/></sm:url>
</sm:urlset>`;
  const doc = parseDocument(xml);
  assert.equal(doc.kind, 'change-list');
  assert.equal(doc.entries[0]!.md!.change, 'deleted');
  // An `rs:` prefix bound to a different URI (no trailing slash) is not ResourceSync metadata.
  const wrong = parseDocument(
    `<urlset xmlns="${SITEMAP_NS}" xmlns:rs="http://www.openarchives.org/rs/terms"><rs:md capability="changelist"/></urlset>`,
  );
  assert.equal(wrong.kind, 'sitemap');
  assert.equal(wrong.extraElements?.[0]?.name, 'rs:md');
});

test('RN-1..RN-3, RN-8..RN-11: a change notification parses with from/until, entries, hashes and links', () => {
  const n = parseChangeNotification(NOTIFICATION);
  assert.equal(n.kind, 'change-notification');
  assert.equal(n.from.lexical, '2013-01-03T00:00:00Z');
  assert.equal(n.until.lexical, '2013-01-03T00:10:00Z');
  assert.deepEqual(n.links, [
    { rel: 'up', href: 'http://example.com/dataset1/capabilitylist.xml' },
  ]);
  assert.equal(n.entries.length, 2);
  const [a, b] = n.entries;
  assert.equal(a!.loc, 'http://example.com/res1');
  assert.equal(a!.lastmod!.lexical, '2013-01-01T13:03:00Z');
  assert.equal(a!.md!.length, 8876);
  assert.equal(a!.md!.type, 'application/pdf');
  // RC-26: two tokens across a newline in one attribute.
  assert.deepEqual(
    b!.md!.hash!.map((h) => h.algorithm),
    ['md5', 'sha-256'],
  );
  assert.equal(
    b!.md!.hash![1]!.hex,
    '854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784',
  );
});

test('RN-1, RN-2, RN-3, RN-10: parseChangeNotification refuses what is not a notification with RS_NOTIFICATION_INVALID', () => {
  const md =
    '<rs:md capability="change-notification" from="2013-01-03T00:00:00Z" until="2013-01-03T00:10:00Z"/>';
  const entry = '<url><loc>http://a/1</loc><rs:md change="updated"/></url>';
  rejects(
    () => parseChangeNotification(index(md + entry.replace(/url>/g, 'sitemap>'))),
    'RS_NOTIFICATION_INVALID',
    /RN-1/,
  );
  rejects(
    () => parseChangeNotification(urlset(md.replace('change-notification', 'changelist') + entry)),
    'RS_NOTIFICATION_INVALID',
    /RN-2/,
  );
  rejects(() => parseChangeNotification(urlset(entry)), 'RS_NOTIFICATION_INVALID', /RN-2/);
  rejects(
    () => parseChangeNotification(urlset(md.replace(' until="2013-01-03T00:10:00Z"', '') + entry)),
    'RS_NOTIFICATION_INVALID',
    /RN-3/,
  );
  rejects(
    () => parseChangeNotification(urlset(md.replace(' from="2013-01-03T00:00:00Z"', '') + entry)),
    'RS_NOTIFICATION_INVALID',
    /RN-3/,
  );
  rejects(
    () =>
      parseChangeNotification(
        urlset(
          md
            .replace('00:10:00Z', '2012-01-01T00:00:00Z'.slice(11))
            .replace('2013-01-03T00:00:00Z', '2013-01-04T00:00:00Z') + entry,
        ),
      ),
    'RS_NOTIFICATION_INVALID',
    /before from/,
  );
  rejects(
    () => parseChangeNotification(urlset(md + '<url><loc>http://a/1</loc></url>')),
    'RS_NOTIFICATION_INVALID',
    /RN-10/,
  );
  rejects(
    () =>
      parseChangeNotification(urlset(md + '<url><loc>http://a/1</loc><rs:md length="3"/></url>')),
    'RS_NOTIFICATION_INVALID',
    /entry 0/,
  );
  // from == until is an empty but valid interval.
  assert.equal(
    parseChangeNotification(urlset(md.replace('00:10:00Z', '00:00:00Z'))).entries.length,
    0,
  );
});

test('RC-28: a bad datetime is RS_BAD_DATETIME naming the element and attribute', () => {
  rejects(
    () => parseDocument(urlset('<rs:md capability="changelist" from="yesterday"/>')),
    'RS_BAD_DATETIME',
    /<rs:md> @from.*line 3/,
  );
  rejects(
    () => parseDocument(urlset('<url><loc>http://a</loc><lastmod>2013-02-30</lastmod></url>')),
    'RS_BAD_DATETIME',
    /<lastmod> of entry 0/,
  );
  rejects(
    () =>
      parseDocument(
        urlset('<url><loc>http://a</loc><rs:ln rel="x" href="y" modified="13:00"/></url>'),
      ),
    'RS_BAD_DATETIME',
    /@modified/,
  );
});

test('RN-10, RC-27: a bad change or length is RS_BAD_ATTRIBUTE', () => {
  rejects(
    () => parseDocument(urlset('<url><loc>http://a</loc><rs:md change="modified"/></url>')),
    'RS_BAD_ATTRIBUTE',
    /@change of entry 0/,
  );
  rejects(
    () => parseDocument(urlset('<url><loc>http://a</loc><rs:md length="-1"/></url>')),
    'RS_BAD_ATTRIBUTE',
    /@length/,
  );
  rejects(
    () => parseDocument(urlset('<url><loc>http://a</loc><rs:md length="12kB"/></url>')),
    'RS_BAD_ATTRIBUTE',
    /@length/,
  );
  rejects(
    () =>
      parseDocument(urlset('<url><loc>http://a</loc><rs:ln rel="x" href="y" length="1.5"/></url>')),
    'RS_BAD_ATTRIBUTE',
    /<rs:ln> @length/,
  );
});

test('RN-8, RC-3: an entry without <loc> is RS_MISSING_ELEMENT naming the entry', () => {
  rejects(
    () =>
      parseDocument(
        urlset('<url><loc>http://a</loc></url>\n<url><lastmod>2013-01-01</lastmod></url>'),
      ),
    'RS_MISSING_ELEMENT',
    /entry 1 .*line 4/,
  );
  rejects(() => parseDocument(urlset('<url><loc>  </loc></url>')), 'RS_MISSING_ELEMENT', /entry 0/);
});

test('RC-6: any root other than urlset / sitemapindex (in the sitemap namespace) is RS_UNKNOWN_ROOT', () => {
  rejects(
    () => parseDocument('<feed xmlns="http://www.w3.org/2005/Atom"/>'),
    'RS_UNKNOWN_ROOT',
    /<feed>/,
  );
  rejects(() => parseDocument('<html><head/></html>'), 'RS_UNKNOWN_ROOT');
  rejects(
    () => parseDocument('<urlset xmlns="http://example.org/not-sitemaps"/>'),
    'RS_UNKNOWN_ROOT',
    /namespace/,
  );
});

test('safety: malformed, DOCTYPE and oversized input are refused with their codes', () => {
  rejects(
    () => parseDocument('\n<?xml version="1.0"?>\n<urlset/>'),
    'RS_XML_MALFORMED',
    /XML declaration/,
  );
  rejects(() => parseDocument(urlset('<url><loc>http://a</loc>')), 'RS_XML_MALFORMED');
  rejects(() => parseDocument(''), 'RS_XML_MALFORMED');
  rejects(() => parseDocument('not xml at all'), 'RS_XML_MALFORMED');
  rejects(
    () =>
      parseDocument(
        `<!DOCTYPE urlset [<!ENTITY e "x">]><urlset ${NS}><url><loc>&e;</loc></url></urlset>`,
      ),
    'RS_DOCTYPE_FORBIDDEN',
  );
  rejects(
    () => parseDocument(urlset('<url><loc>http://a</loc></url>'), { maxBytes: 100 }),
    'RS_TOO_LARGE',
  );
});

test('tolerance: relative loc/href resolve against baseUrl; absolute ones stay exactly as written', () => {
  const doc = parseDocument(
    urlset(`
    <rs:ln rel="up" href="../capabilitylist.xml"/>
    <rs:md capability="resourcelist" at="2013-01-03"/>
    <url><loc>a_resource</loc></url>
    <url><loc>http://Example.COM/a b/ü?x=1&amp;y=2</loc></url>`),
    { baseUrl: 'http://example.com/data/resourcelist.xml' },
  );
  assert.equal(doc.links[0]!.href, 'http://example.com/capabilitylist.xml');
  assert.equal(doc.entries[0]!.loc, 'http://example.com/data/a_resource');
  assert.equal(doc.entries[1]!.loc, 'http://Example.COM/a b/ü?x=1&y=2');
  assert.equal(doc.md.at!.precision, 'day');
});

test('tolerance: unknown attributes, unknown elements and namespace declarations are kept', () => {
  const doc = parseDocument(
    urlset(
      `
    <rs:md capability="resourcelist" at="2013-01-03T09:00:00Z" modified="2013-11-27" ex:flag="1"/>
    <ex:note>top</ex:note>
    <url><loc>http://a/1</loc><changefreq>daily</changefreq><priority>0.5</priority>
      <rs:ln rel="alternate" href="http://a/1.pdf" pri="abc" type="application/pdf"/></url>`,
      ` xmlns:ex="http://example.org/ex" ex:root="r"`,
    ),
  );
  assert.deepEqual(doc.namespaces, {
    xmlns: SITEMAP_NS,
    'xmlns:rs': RS_NS,
    'xmlns:ex': 'http://example.org/ex',
  });
  assert.deepEqual(doc.extraAttributes, { 'ex:root': 'r' });
  assert.deepEqual(doc.md.extra, { modified: '2013-11-27', 'ex:flag': '1' });
  assert.deepEqual(doc.extraElements, [
    { name: 'ex:note', attributes: {}, text: 'top', children: [] },
  ]);
  const e = doc.entries[0]!;
  assert.equal(e.changefreq, 'daily');
  assert.deepEqual(e.extraElements, [
    { name: 'priority', attributes: {}, text: '0.5', children: [] },
  ]);
  // RC-29: an uninterpretable pri is kept raw, not typed, and not fatal.
  assert.equal(e.links[0]!.pri, undefined);
  assert.deepEqual(e.links[0]!.extra, { pri: 'abc' });
});

test('RC-25: entryToChange takes datetime, else lastmod; undefined without rs:md/@change', () => {
  const doc = parseDocument(
    urlset(`
    <url><loc>http://a/1</loc><lastmod>2013-01-01T00:00:00Z</lastmod><rs:md change="updated" datetime="2013-01-02T00:00:00Z" hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6" length="3" type="text/plain"/></url>
    <url><loc>http://a/2</loc><lastmod>2013-01-01T00:00:00Z</lastmod><rs:md change="created"/></url>
    <url><loc>http://a/3</loc><rs:md change="deleted"/></url>
    <url><loc>http://a/4</loc><lastmod>2013-01-01T00:00:00Z</lastmod></url>`),
  );
  const [a, b, c, d] = doc.entries.map(entryToChange);
  assert.equal(a!.time!.lexical, '2013-01-02T00:00:00Z');
  assert.equal(a!.length, 3);
  assert.equal(a!.type, 'text/plain');
  assert.equal(a!.hash![0]!.hex, '1584abdf8ebdc9802ac0c6a7402c03b6');
  assert.deepEqual(Object.keys(b!).sort(), ['change', 'lastmod', 'time', 'uri']);
  assert.equal(b!.time!.lexical, '2013-01-01T00:00:00Z');
  assert.deepEqual(c, { uri: 'http://a/3', change: 'deleted' });
  assert.equal(d, undefined);
});

test('RC-23/RC-25: a deleted entry without datetime has no change time; its lastmod is kept apart', () => {
  const doc = parseDocument(
    urlset(`
    <url><loc>http://a/1</loc><lastmod>2013-01-01T00:00:00Z</lastmod><rs:md change="deleted"/></url>
    <url><loc>http://a/2</loc><lastmod>2013-01-01T00:00:00Z</lastmod><rs:md change="deleted" datetime="2013-01-05T00:00:00Z"/></url>`),
  );
  const [a, b] = doc.entries.map(entryToChange);
  assert.equal(a!.time, undefined);
  assert.equal(a!.lastmod!.lexical, '2013-01-01T00:00:00Z');
  assert.equal(b!.time!.lexical, '2013-01-05T00:00:00Z');
});

test('RC-28 leniency: an entry lastmod/datetime without zone is read as UTC and marked; from/until stay strict', () => {
  const doc = parseDocument(
    urlset(`
    <url><loc>http://a/1</loc><lastmod>2012-06-13T17:13:47</lastmod><rs:md change="updated" datetime="2012-06-13T17:13:48"/></url>`),
  );
  const e = doc.entries[0]!;
  assert.equal(e.lastmod!.lexical, '2012-06-13T17:13:47');
  assert.equal(e.lastmod!.key, '2012-06-13T17:13:47.');
  assert.equal(e.lastmod!.assumedUtc, true);
  assert.equal(e.md!.datetime!.assumedUtc, true);
  rejects(
    () => parseDocument(urlset('<rs:md capability="changelist" from="2012-06-13T17:13:47"/>')),
    'RS_BAD_DATETIME',
    /@from/,
  );
  rejects(
    () =>
      parseDocument(urlset('<url><loc>http://a</loc><lastmod>2012-06-13T25:13:47</lastmod></url>')),
    'RS_BAD_DATETIME',
    /lastmod/,
  );
});

test('RA-1: notificationChannels lists each change-notification entry with its rel="hub" hrefs', () => {
  const doc = parseDocument(
    urlset(`
    <rs:md capability="capabilitylist"/>
    <url><loc>http://example.com/dataset1/resourcelist.xml</loc><rs:md capability="resourcelist"/></url>
    <url><loc>http://example.com/dataset1/change/</loc>
      <rs:ln rel="hub" href="http://hub.example.org/websub/"/>
      <rs:ln rel="describedby" href="http://example.com/about"/>
      <rs:ln rel="hub" href="http://hub2.example.org/"/>
      <rs:md capability="change-notification"/></url>`),
  ) as CapabilityList;
  assert.deepEqual(notificationChannels(doc), [
    {
      topic: 'http://example.com/dataset1/change/',
      hubs: ['http://hub.example.org/websub/', 'http://hub2.example.org/'],
    },
  ]);
});
