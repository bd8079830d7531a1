// RFC 8288 Link headers (RT-2, RT-4, WH-17) and embedded links for discovery (WS-1, RC-8, RC-9).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  extractEmbeddedLinks,
  extractRobotsSitemaps,
  firstLinkWithRel,
  formatLinkHeader,
  linksWithRel,
  parseLinkHeader,
} from '@rsnotify/shared';

test('WH-17, RT-4: several links in one header and several headers; quoted and unquoted rel', () => {
  const links = parseLinkHeader([
    '<http://example.com/topic>; rel="self", <http://hub.example.org/>; rel=hub',
    '<http://example.com/caps.xml> ; rel="resourcesync" ; type="application/xml"',
  ]);
  assert.deepEqual(linksWithRel(links, 'self'), ['http://example.com/topic']);
  assert.deepEqual(linksWithRel(links, 'hub'), ['http://hub.example.org/']);
  assert.deepEqual(links[2]!.params, { type: 'application/xml' });
  assert.equal(
    firstLinkWithRel(links, 'HUB'),
    'http://hub.example.org/',
    'relation types compare case-insensitively',
  );
  assert.equal(firstLinkWithRel(links, 'up'), undefined);
});

test('RFC 8288: a rel list names several relations; only the first rel parameter counts; commas inside quotes', () => {
  const links = parseLinkHeader(
    '<http://a/>; rel="self hub"; rel="ignored"; title="a, b", <http://b/>; rel="Alternate"',
  );
  assert.equal(links.length, 2);
  assert.deepEqual(links[0]!.rels, ['self', 'hub']);
  assert.equal(links[0]!.params.title, 'a, b');
  assert.deepEqual(links[1]!.rels, ['alternate']);
});

test('Link headers: relative hrefs resolve against the base; garbage members are skipped', () => {
  const links = parseLinkHeader(
    'garbage, <../caps.xml>; rel=resourcesync, <unterminated',
    'http://example.com/a/b/page',
  );
  assert.deepEqual(
    links.map((l) => l.href),
    ['http://example.com/a/caps.xml'],
  );
  assert.deepEqual(parseLinkHeader(undefined), []);
  assert.deepEqual(parseLinkHeader(''), []);
});

test('WH-17: formatLinkHeader writes one header that parses back', () => {
  const value = formatLinkHeader([
    { href: 'http://example.com/t', rel: 'self' },
    { href: 'http://hub/', rel: ['hub'], params: { title: 'say "hi"' } },
  ]);
  assert.equal(
    value,
    '<http://example.com/t>; rel="self", <http://hub/>; rel="hub"; title="say \\"hi\\""',
  );
  const back = parseLinkHeader(value);
  assert.deepEqual(
    back.map((l) => [l.href, l.rels]),
    [
      ['http://example.com/t', ['self']],
      ['http://hub/', ['hub']],
    ],
  );
  assert.equal(back[1]!.params.title, 'say "hi"');
});

test('WS-1, RC-8: HTML links are read from <head> only, with <base> and entities honoured', () => {
  const html = `<!DOCTYPE html><html><head><base href="http://example.com/dir/">
    <LINK REL="hub" HREF='http://hub.example.org/'><link rel=self href=topic.xml>
    <link rel="resourcesync" href="caps.xml?a=1&amp;b=2"/></head>
    <body><link rel="hub" href="http://evil.example/"></body></html>`;
  const links = extractEmbeddedLinks(html, 'http://example.com/page.html');
  assert.deepEqual(linksWithRel(links, 'hub'), ['http://hub.example.org/']);
  assert.deepEqual(linksWithRel(links, 'self'), ['http://example.com/dir/topic.xml']);
  assert.deepEqual(linksWithRel(links, 'resourcesync'), [
    'http://example.com/dir/caps.xml?a=1&b=2',
  ]);
});

test('WS-1: Atom <link> and RSS <atom:link> give hub and self', () => {
  const atom = `<feed xmlns="http://www.w3.org/2005/Atom"><link rel="hub" href="https://hub.example/"/><link rel="self" href="https://ex.com/feed"/><entry><link href="https://ex.com/1"/></entry></feed>`;
  const a = extractEmbeddedLinks(atom);
  assert.deepEqual(linksWithRel(a, 'hub'), ['https://hub.example/']);
  assert.deepEqual(linksWithRel(a, 'self'), ['https://ex.com/feed']);
  const rss = `<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><atom:link rel="hub" href="https://hub.example/"/>
    <atom:link rel="self" href="https://ex.com/rss" type="application/rss+xml"/><link>https://ex.com/</link></channel></rss>`;
  const r = extractEmbeddedLinks(rss);
  assert.deepEqual(linksWithRel(r, 'hub'), ['https://hub.example/']);
  assert.deepEqual(linksWithRel(r, 'self'), ['https://ex.com/rss']);
  assert.equal(r.find((l) => l.rels.includes('self'))!.params.type, 'application/rss+xml');
});

test('RC-9: robots.txt Sitemap lines, any case, relative ones resolved; other lines ignored', () => {
  const robots =
    'User-agent: *\nDisallow: /x\nSitemap: http://a.example/rl.xml\r\n  sitemap :/rel/list.xml\n# Sitemap: http://commented/\n';
  assert.deepEqual(extractRobotsSitemaps(robots, 'http://b.example/robots.txt'), [
    'http://a.example/rl.xml',
    'http://b.example/rel/list.xml',
  ]);
});
