// Fixtures read by the discovery helpers: HTML <link> discovery (RC-8, WS-1) and robots.txt (RC-9).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractEmbeddedLinks, extractRobotsSitemaps, linksWithRel } from '@rsnotify/shared';
import { read } from './fixture-tables/index.js';

test('RC-8, WS-1: HTML discovery finds the resourcesync link only where it is well formed', async () => {
  const base = 'http://source.example.org/discover/loc1/page.html';
  const page = extractEmbeddedLinks(await read('destination-cases/discover/loc1/page.html'), base);
  assert.deepEqual(linksWithRel(page, 'resourcesync'), [
    'http://source.example.org/discover/loc1/capabilitylist.xml',
  ]);
  assert.deepEqual(linksWithRel(page, 'icon'), [
    'http://source.example.org/discover/loc1/favicon.ico',
  ]);
  for (const file of ['corrupt_page.html', 'header_page.html', 'unparsable.html']) {
    assert.deepEqual(
      linksWithRel(
        extractEmbeddedLinks(await read(`destination-cases/discover/loc1/${file}`), base),
        'resourcesync',
      ),
      [],
      file,
    );
  }
  for (const file of [
    'simulator-captures/sim_home.html',
    'spec-html/resourcesync-1.0.html',
    'spec-html/resourcesync-1.0.9-draft-of-1.1.html',
  ]) {
    const links = extractEmbeddedLinks(await read(file), 'http://127.0.0.1:8888/');
    assert.equal(linksWithRel(links, 'resourcesync').length, 0, file);
    assert.ok(linksWithRel(links, 'stylesheet').length === 1, `${file} has its stylesheet link`);
  }
});

test('RC-9: robots.txt gives both Sitemap lines', async () => {
  assert.deepEqual(
    extractRobotsSitemaps(
      await read('destination-cases/discover/loc2/robots.txt'),
      'http://source.example.org/robots.txt',
    ),
    [
      'http://source.example.org/discover/loc2/dataset1/resourcelist.xml',
      'http://example.com/dataset1/resourcelist2.xml',
    ],
  );
});
