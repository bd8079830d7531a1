// parseDocument(serializeDocument(d)) deep-equals d: for every fixture document and for generated
// documents of every kind with everything the model keeps (hash lists, links, sub-second times,
// unknown attributes and elements, characters that need escaping).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  RS_NS,
  SITEMAP_NS,
  isRsnotifyError,
  parseDateTime,
  parseDocument,
  parseHashList,
  serializeDocument,
  type DocumentKind,
  type Entry,
  type ResourceSyncDocument,
  type RootElement,
} from '@rsnotify/shared';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/resourcesync/', import.meta.url));
const NAMESPACES = { xmlns: SITEMAP_NS, 'xmlns:rs': RS_NS };

async function xmlFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of await readdir(dir)) {
    const p = join(dir, name);
    if ((await stat(p)).isDirectory()) out.push(...(await xmlFiles(p)));
    else if (name.endsWith('.xml') || name === 'resourcesync') out.push(p);
  }
  return out;
}

const roundTrip = (doc: ResourceSyncDocument): ResourceSyncDocument =>
  parseDocument(serializeDocument(doc));

test('round trip: every fixture document (except the two refused on purpose)', async () => {
  let done = 0;
  for (const file of await xmlFiles(FIXTURES)) {
    const name = relative(FIXTURES, file);
    let doc: ResourceSyncDocument;
    try {
      doc = parseDocument(await readFile(file, 'utf8'), {
        baseUrl: `http://fixtures.test/${name}`,
      });
    } catch (err) {
      assert.ok(
        isRsnotifyError(err) && /MALFORMED|sitemapindex1\/sitemap00002/.test(name),
        `${name}: ${String(err)}`,
      );
      continue;
    }
    assert.deepStrictEqual(roundTrip(doc), doc, name);
    done++;
  }
  assert.ok(done >= 130, `round-tripped ${done} fixture documents`);
});

const KINDS: [DocumentKind, RootElement, string][] = [
  ['source-description', 'urlset', 'description'],
  ['source-description-index', 'sitemapindex', 'description'],
  ['capability-list', 'urlset', 'capabilitylist'],
  ['capability-list-index', 'sitemapindex', 'capabilitylist'],
  ['resource-list', 'urlset', 'resourcelist'],
  ['resource-list-index', 'sitemapindex', 'resourcelist'],
  ['resource-dump', 'urlset', 'resourcedump'],
  ['resource-dump-index', 'sitemapindex', 'resourcedump'],
  ['resource-dump-manifest', 'urlset', 'resourcedump-manifest'],
  ['change-list', 'urlset', 'changelist'],
  ['change-list-index', 'sitemapindex', 'changelist'],
  ['change-dump', 'urlset', 'changedump'],
  ['change-dump-index', 'sitemapindex', 'changedump'],
  ['change-dump-manifest', 'urlset', 'changedump-manifest'],
  ['change-notification', 'urlset', 'change-notification'],
  ['archive', 'urlset', 'changelist-archive'],
  ['archive-index', 'sitemapindex', 'changelist-archive'],
  ['sitemap', 'urlset', ''],
  ['sitemap-index', 'sitemapindex', ''],
];

function richEntry(i: number): Entry {
  return {
    loc: `http://example.com/a b/ü-${i}?x=1&y="2"<3>`,
    lastmod: parseDateTime('2026-11-22T10:00:00.123456Z'),
    changefreq: 'daily',
    md: {
      change: (['created', 'updated', 'deleted'] as const)[i % 3],
      datetime: parseDateTime(`2026-11-22T10:00:0${i % 10}.00000${i % 10}+01:00`),
      hash: parseHashList(
        'md5:1584abdf8ebdc9802ac0c6a7402c03b6 sha-256:f4OxZX_x_FO5LcGBSKHWXfwtSx-j1ncoSt3SABJtkGk= x-unknown:zzz',
      ),
      length: 8876 + i,
      type: 'text/plain; charset="utf-8"',
      encoding: 'gzip',
      path: '/resources/ü & co.txt',
      extra: { modified: '2013-11-27', 'ex:note': 'tab\there\nnewline' },
    },
    links: [
      {
        rel: 'duplicate',
        href: 'http://mirror.example.com/x',
        pri: 1,
        modified: parseDateTime('2026'),
        hash: parseHashList('md5:1e0d5cb8ef6ba40c99b14c0237be735e'),
        length: 5,
        type: 'text/html',
        encoding: 'br',
        path: '/p',
      },
      {
        rel: 'http://www.openarchives.org/rs/terms/patch',
        href: 'http://example.com/p?diff',
        extra: { pri: 'not-a-number' },
      },
    ],
    extraElements: [
      { name: 'priority', attributes: {}, text: '0.5', children: [] },
      {
        name: 'ex:wrapper',
        attributes: { 'ex:a': '1 & 2' },
        children: [
          { name: 'ex:leaf', attributes: {}, text: '  keep  <spaces> ', children: [] },
          { name: 'ex:empty', attributes: {}, children: [] },
        ],
      },
    ],
  };
}

test('round trip: generated documents of every kind with hashes, links, sub-second times, unknown attributes and elements', () => {
  for (const [kind, root, capability] of KINDS) {
    const md = capability
      ? {
          capability,
          from: parseDateTime('2026-11-22T10:00:00.000001Z'),
          until: parseDateTime('2026-11-22T10:00:10Z'),
          at: parseDateTime('2026-11-22'),
          completed: parseDateTime('2026-11-22T10:01+02:00'),
          extra: { 'ex:top': 'yes' },
        }
      : {};
    const doc: ResourceSyncDocument = {
      kind,
      root,
      capability,
      md,
      links: [
        { rel: 'up', href: 'http://example.com/capabilitylist.xml' },
        { rel: 'hub', href: 'http://hub.example.org/' },
      ],
      entries: [
        richEntry(1),
        richEntry(2),
        { loc: 'http://example.com/plain', links: [] },
        { loc: 'http://example.com/empty-md', md: {}, links: [] },
      ],
      namespaces: { ...NAMESPACES, 'xmlns:ex': 'http://example.org/ex' },
      extraAttributes: { 'ex:root': 'r' },
      extraElements: [
        {
          name: 'ex:trailer',
          attributes: { 'xmlns:y': 'http://example.org/y', 'y:z': '1' },
          text: 'end',
          children: [],
        },
      ],
    };
    const again = roundTrip(doc);
    assert.deepStrictEqual(again, doc, kind);
  }
});

test('serialize: lexical datetimes and hash tokens are written exactly as they were', () => {
  const xml = serializeDocument(
    roundTrip({
      kind: 'change-list',
      root: 'urlset',
      capability: 'changelist',
      namespaces: NAMESPACES,
      links: [],
      md: { capability: 'changelist', from: parseDateTime('2013-01-03T00:00:00.10+01:00') },
      entries: [
        {
          loc: 'http://a/1',
          md: { change: 'updated', hash: parseHashList('md5:evvr4+A8RNTAIEfhySh+Uw==') },
          links: [],
        },
      ],
    }),
  );
  assert.match(xml, /from="2013-01-03T00:00:00\.10\+01:00"/);
  assert.match(xml, /hash="md5:evvr4\+A8RNTAIEfhySh\+Uw=="/);
});

test('serialize: escapes &, <, > in text and quotes and whitespace in attributes; URIs are otherwise as given', () => {
  const xml = serializeDocument(
    parseDocument(
      serializeDocument({
        kind: 'resource-list',
        root: 'urlset',
        capability: 'resourcelist',
        namespaces: NAMESPACES,
        links: [],
        md: { capability: 'resourcelist' },
        entries: [
          {
            loc: 'http://example.com/a b/ü?x=1&y=<2>',
            md: { type: 'a"b', extra: { note: 'l1\nl2' } },
            links: [],
          },
        ],
      }),
    ),
  );
  assert.match(xml, /<loc>http:\/\/example\.com\/a b\/ü\?x=1&amp;y=&lt;2&gt;<\/loc>/);
  assert.match(xml, /type="a&quot;b"/);
  assert.match(xml, /note="l1&#10;l2"/);
});

test('serialize: a model built with another rs prefix or without namespaces still writes namespaced ResourceSync', () => {
  const doc: ResourceSyncDocument = {
    kind: 'change-list',
    root: 'urlset',
    capability: 'changelist',
    namespaces: { xmlns: SITEMAP_NS, 'xmlns:x': RS_NS },
    links: [],
    md: { capability: 'changelist' },
    entries: [{ loc: 'http://a/1', md: { change: 'created' }, links: [] }],
  };
  const xml = serializeDocument(doc);
  assert.match(xml, /<x:md capability="changelist"\/>/);
  assert.deepStrictEqual(parseDocument(xml), doc);
  // Only `capability` given at the document level (as a model built in code might): still written.
  const bare = parseDocument(serializeDocument({ ...doc, namespaces: {}, md: {} }));
  assert.equal(bare.kind, 'change-list');
  assert.equal(bare.entries[0]!.md!.change, 'created');
  assert.deepEqual(bare.namespaces, { xmlns: SITEMAP_NS });
});
