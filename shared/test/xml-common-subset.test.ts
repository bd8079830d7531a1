// The fast path (src/xml/common-subset.ts) must read a document exactly as the full reader does, or
// not at all: whenever readCommonSubset accepts, the full reader (saxes, the prolog guard, the limits)
// accepts too and hands the handler the same tags, bindings, text runs and lines. Held here over every
// XML fixture, a table of documents at the subset's edges, and mechanical mutations of each (a
// character deleted, doubled, or replaced by one that matters to XML), under the default limits and
// under small ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DocumentError, RS_NS, SITEMAP_NS } from '@rsnotify/shared';
import {
  DEFAULT_XML_LIMITS,
  PrologGuard,
  XmlReader,
  readCommonSubset,
  replayCommonSubset,
  type XmlHandler,
  type XmlLimits,
} from '../src/xml/index.js';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/resourcesync/', import.meta.url));
const HEAD = `<urlset xmlns="${SITEMAP_NS}" xmlns:rs="${RS_NS}">`;
const MD =
  '<rs:md capability="change-notification" from="2026-01-01T00:00:00Z" until="2026-01-01T00:00:01Z"/>';

type Event = readonly unknown[];

/** The prefixes a document could bind: every `xmlns:` in it, the default namespace, `xml`. */
function prefixesIn(xml: string): string[] {
  const declared = [...xml.matchAll(/xmlns:([^\s=/>]+)/g)].map((m) => m[1]!);
  return [...new Set(['', 'xml', 'xmlns', ...declared])];
}

/** Records the handler's calls; each tag's bindings as the URI of every prefix in `prefixes`. */
function recorder(prefixes: readonly string[]): { handler: XmlHandler; events: Event[] } {
  const events: Event[] = [];
  return {
    events,
    handler: {
      open: (tag, line) =>
        events.push([
          'open',
          tag.name,
          tag.prefix,
          tag.local,
          tag.uri,
          tag.attributes.map(({ name, value }) => [name, value]),
          prefixes.map((prefix) => tag.bindings.get(prefix)),
          line,
        ]),
      close: (tag) => events.push(['close', tag.name]),
      text: (text) => events.push(['text', text]),
    },
  };
}

type Verdict = { events: Event[] } | { refused: string };

function throughFullReader(xml: string, limits: XmlLimits): Verdict {
  const { handler, events } = recorder(prefixesIn(xml));
  try {
    new PrologGuard().feed(xml);
    const reader = new XmlReader(handler, limits);
    reader.write(xml);
    reader.close();
    return { events };
  } catch (e) {
    assert.ok(e instanceof DocumentError, String(e));
    return { refused: e.code };
  }
}

function throughFastPath(xml: string, limits: XmlLimits): Event[] | undefined {
  const document = readCommonSubset(xml, limits);
  if (document === undefined) return undefined;
  const { handler, events } = recorder(prefixesIn(xml));
  replayCommonSubset(document, handler);
  return events;
}

/** Read by the fast path exactly as by the full reader; false when the fast path declined it. */
function agrees(xml: string, limits: XmlLimits = DEFAULT_XML_LIMITS): boolean {
  const fast = throughFastPath(xml, limits);
  if (fast === undefined) return false;
  assert.deepEqual(
    throughFullReader(xml, limits),
    { events: fast },
    `the fast path accepted a document the full reader reads otherwise:\n${JSON.stringify(xml)}`,
  );
  return true;
}

const entry = (n: number, md = `change="updated" datetime="2026-01-01T00:00:0${n}Z"`) =>
  `<url><loc>http://example.org/r/${n}</loc><rs:md ${md}/></url>`;

/** Documents the fast path reads: what Sources write, in the subset's every form. */
const IN_SUBSET: readonly (readonly [string, string])[] = [
  [
    'a notification',
    `<?xml version="1.0" encoding="UTF-8"?>\n${HEAD}\n${MD}\n${entry(1)}\n${entry(2)}\n</urlset>\n`,
  ],
  ['no XML declaration', `${HEAD}${MD}${entry(1)}</urlset>`],
  [
    'a declaration in single quotes, standalone',
    `<?xml version='1.0' encoding='utf-8' standalone='yes'?>${HEAD}${MD}</urlset>`,
  ],
  [
    'entities in text and values',
    `${HEAD}${MD}<url><loc>http://e.org/?a=1&amp;b=&lt;2&gt;&quot;&apos;</loc><rs:md change="created" type="a&amp;b &quot;q&quot;"/></url></urlset>`,
  ],
  [
    'values in single quotes holding double quotes',
    `${HEAD}<rs:md capability='change-notification' note='say "hi" &gt;'/></urlset>`,
  ],
  [
    'whitespace inside tags',
    `<urlset  xmlns="${SITEMAP_NS}"\n   xmlns:rs="${RS_NS}" >${MD}<url ><loc >x</loc\n></url ></urlset\n>`,
  ],
  [
    'a start tag over several lines',
    `${HEAD}\n<url>\n<loc>x</loc>\n<rs:md\n change="deleted"\n/>\n</url></urlset>`,
  ],
  [
    'non-ASCII text and values',
    `${HEAD}<url><loc>http://e.org/caf\u00e9/\u4e2d</loc><rs:md change="updated" type="\u00e9"/></url></urlset>`,
  ],
  [
    'a prefix bound on a child',
    `${HEAD}<url><loc>x</loc><x:y xmlns:x="urn:x" x:a="1">t</x:y></url></urlset>`,
  ],
  ['`]]` and `>` apart in text', `${HEAD}<url><loc>a]]b]>c</loc></url></urlset>`],
  [
    'a lone `>` in text and in a value',
    `${HEAD}<url><loc>a>b</loc><rs:md change="updated" type="a>b"/></url></urlset>`,
  ],
  ['another root in no namespace', '<a><b c="1"/>text</a>'],
];

/** Documents the full reader accepts that the fast path leaves to it. */
const OUTSIDE_SUBSET: readonly (readonly [string, string])[] = [
  ['a comment', `${HEAD}<!-- c --></urlset>`],
  ['a processing instruction', `<?xml-stylesheet href="a.xsl"?>${HEAD}</urlset>`],
  ['CDATA', `${HEAD}<url><loc><![CDATA[x]]></loc></url></urlset>`],
  ['a character reference', `${HEAD}<url><loc>&#120;</loc></url></urlset>`],
  ['CR LF line ends', `${HEAD}\r\n${MD}\r\n</urlset>`],
  ['a tab in a value', `${HEAD}<rs:md capability="change-notification\t"/></urlset>`],
  ['a newline in a value', `${HEAD}<rs:md capability="a\nb"/></urlset>`],
  ['spaces around `=`', `${HEAD}<rs:md capability = "change-notification"/></urlset>`],
  ['a non-ASCII name', `${HEAD}<caf\u00e9/></urlset>`],
  ['an astral character', `${HEAD}<url><loc>\u{1F600}</loc></url></urlset>`],
  ['XML 1.1', `<?xml version="1.1"?>${HEAD}</urlset>`],
  ['another encoding declared', `<?xml version="1.0" encoding="ISO-8859-1"?>${HEAD}</urlset>`],
  ['a byte order mark', `\ufeff${HEAD}</urlset>`],
];

/** Documents both refuse; the fast path must decline each (the full reader gives the reason). */
const REFUSED: readonly (readonly [string, string])[] = [
  ['a DOCTYPE', `<!DOCTYPE urlset>${HEAD}</urlset>`],
  ['mismatched tags', `${HEAD}<url></loc></urlset>`],
  ['an unclosed root', `${HEAD}<url></url>`],
  ['no root', '   '],
  ['two roots', `${HEAD}</urlset><a/>`],
  ['text before the root', `x${HEAD}</urlset>`],
  ['text after the root', `${HEAD}</urlset>x`],
  ['an entity after the root', `${HEAD}</urlset>&amp;`],
  ['`]]>` in text', `${HEAD}<url><loc>a]]>b</loc></url></urlset>`],
  ['`<` in a value', `${HEAD}<rs:md capability="a<b"/></urlset>`],
  ['an undeclared entity', `${HEAD}<url><loc>&nbsp;</loc></url></urlset>`],
  ['a bare `&`', `${HEAD}<url><loc>a&b</loc></url></urlset>`],
  ['a duplicate attribute', `${HEAD}<rs:md change="a" change="b"/></urlset>`],
  ['no whitespace between attributes', `${HEAD}<rs:md a="1"b="2"/></urlset>`],
  ['an unquoted value', `${HEAD}<rs:md a=1/></urlset>`],
  ['an unbound prefix', `${HEAD}<p:x/></urlset>`],
  ['the sitemap root in no namespace', '<urlset><url><loc>x</loc></url></urlset>'],
  ['a control character', `${HEAD}<url><loc>a\u0001</loc></url></urlset>`],
  ['U+FFFE', `${HEAD}<url><loc>a\ufffe</loc></url></urlset>`],
  ['a lone surrogate', `${HEAD}<url><loc>a\ud800</loc></url></urlset>`],
  ['a declaration after whitespace', ` <?xml version="1.0"?>${HEAD}</urlset>`],
  ['a truncated end tag', `${HEAD}</urlset`],
  ['a truncated start tag', `${HEAD}<url`],
];

for (const [what, xml] of IN_SUBSET) {
  test(`common subset: ${what} is read by the fast path as by the full reader`, () => {
    assert.ok(agrees(xml), 'the fast path declined it');
  });
}

for (const [what, xml] of OUTSIDE_SUBSET) {
  test(`common subset: ${what} is left to the full reader, which accepts it`, () => {
    assert.ok('events' in throughFullReader(xml, DEFAULT_XML_LIMITS));
    assert.equal(readCommonSubset(xml, DEFAULT_XML_LIMITS), undefined);
  });
}

for (const [what, xml] of REFUSED) {
  test(`common subset: ${what} is declined, and refused by the full reader`, () => {
    assert.ok('refused' in throughFullReader(xml, DEFAULT_XML_LIMITS));
    assert.equal(readCommonSubset(xml, DEFAULT_XML_LIMITS), undefined);
  });
}

function xmlFixtures(dir: string): string[] {
  const out: string[] = [];
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, item.name);
    if (item.isDirectory()) out.push(...xmlFixtures(path));
    else if (item.name.endsWith('.xml')) out.push(readFileSync(path, 'utf8'));
  }
  return out;
}

/** Characters that change what a document means to an XML reader. */
const SIGNIFICANT = [
  '<',
  '>',
  '/',
  '&',
  ';',
  '"',
  "'",
  '=',
  ' ',
  '\n',
  '\r',
  '\t',
  ':',
  ']',
  '!',
  '?',
  '#',
  'x',
  '\u0000',
  '\ud800',
  '\u00e9',
];

/**
 * Mechanical mutations of `xml`, about `count` of them spread over its length: a character deleted,
 * doubled, or replaced by a SIGNIFICANT one (which of these, and which character, cycle with the
 * position), and the document cut short there.
 */
function mutations(xml: string, count: number): string[] {
  const out: string[] = [];
  const step = Math.max(1, Math.floor(xml.length / count));
  for (let at = 0, k = 0; at < xml.length; at += step, k++) {
    const ch = SIGNIFICANT[(k * 7) % SIGNIFICANT.length]!;
    const before = xml.slice(0, at);
    const after = xml.slice(at + 1);
    switch (k % 4) {
      case 0:
        out.push(before + after);
        break;
      case 1:
        out.push(before + xml[at]! + xml[at]! + after);
        break;
      case 2:
        out.push(before + ch + after);
        break;
      default:
        out.push(before + ch + xml.slice(at));
    }
    if (k % 16 === 0) out.push(before);
  }
  return out;
}

const SMALL_LIMITS: XmlLimits = {
  maxDepth: 3,
  maxAttributes: 3,
  maxElements: 12,
  maxNameLength: 8,
  maxAttributeValueLength: 24,
  maxTextLength: 4,
  maxLocLength: 30,
};

test('common subset: the fixtures and their mutations are read as the full reader reads them, or declined', () => {
  const seeds = [
    ...xmlFixtures(FIXTURES),
    ...IN_SUBSET.map(([, xml]) => xml),
    ...OUTSIDE_SUBSET.map(([, xml]) => xml),
  ];
  let read = 0;
  let declined = 0;
  for (const seed of seeds) {
    for (const xml of [seed, ...mutations(seed, 120)]) {
      if (agrees(xml)) read++;
      else declined++;
    }
  }
  // Both outcomes occur often: a fast path that declined everything would prove nothing here.
  assert.ok(read > 5_000 && declined > 5_000, `read ${read}, declined ${declined}`);
});

test('common subset: under small limits, a document at any limit is left to the full reader', () => {
  let read = 0;
  let refusedByLimit = 0;
  for (const seed of IN_SUBSET.map(([, xml]) => xml)) {
    for (const xml of [seed, ...mutations(seed, 100)]) {
      if (agrees(xml, SMALL_LIMITS)) read++;
      const full = throughFullReader(xml, SMALL_LIMITS);
      if (
        'refused' in full &&
        full.refused.startsWith('RS_XML_') &&
        full.refused !== 'RS_XML_MALFORMED'
      )
        refusedByLimit++;
    }
  }
  assert.ok(read > 0 && refusedByLimit > 100, `read ${read}, refused by a limit ${refusedByLimit}`);
});
