// The ResourceSync fixture builder writes documents the shared parser reads back as written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { entryToChange, parseChangeNotification, parseDocument } from '@rsnotify/shared';
import { changeNotificationXml, resourceSyncXml } from '../src/testing/index.js';

test('fixture: a change notification parses with its from, until and changes (RN-1..RN-3)', () => {
  const xml = changeNotificationXml({
    from: '2026-01-01T00:00:00Z',
    until: '2026-01-01T00:00:01Z',
    entries: [
      { loc: 'http://source.test/a', change: 'updated', datetime: '2026-01-01T00:00:00Z' },
      { loc: 'http://source.test/b', change: 'deleted', datetime: '2026-01-01T00:00:00.5Z' },
    ],
  });
  assert.match(xml, /xmlns="http:\/\/www\.sitemaps\.org\/schemas\/sitemap\/0\.9"/);
  assert.match(xml, /xmlns:rs="http:\/\/www\.openarchives\.org\/rs\/terms\/"/);
  const n = parseChangeNotification(xml);
  assert.equal(n.from.lexical, '2026-01-01T00:00:00Z');
  assert.equal(n.until.lexical, '2026-01-01T00:00:01Z');
  assert.deepEqual(
    n.entries.map((e) => [entryToChange(e)?.uri, entryToChange(e)?.change]),
    [
      ['http://source.test/a', 'updated'],
      ['http://source.test/b', 'deleted'],
    ],
  );
});

test('fixture: a Capability List and a Resource List read back with their kind, links and hashes', () => {
  const caps = parseDocument(
    resourceSyncXml({
      capability: 'capabilitylist',
      links: [{ rel: 'up', href: 'http://source.test/.well-known/resourcesync' }],
      entries: [{ loc: 'http://source.test/changelist.xml', capability: 'changelist' }],
    }),
  );
  assert.equal(caps.kind, 'capability-list');
  assert.deepEqual(
    caps.links.map((l) => [l.rel, l.href]),
    [['up', 'http://source.test/.well-known/resourcesync']],
  );
  assert.equal(caps.entries[0]!.md?.capability, 'changelist');
  const list = parseDocument(
    resourceSyncXml({
      capability: 'resourcelist',
      md: { at: '2026-01-01T00:00:00Z' },
      entries: [
        { loc: 'http://source.test/r', hash: 'md5:1e0d5cb8ef6ba40c99b14c0237be735e', length: 3 },
      ],
    }),
  );
  assert.equal(list.kind, 'resource-list');
  assert.equal(list.md.at?.lexical, '2026-01-01T00:00:00Z');
  assert.equal(list.entries[0]!.md?.hash?.[0]?.hex, '1e0d5cb8ef6ba40c99b14c0237be735e');
  assert.equal(list.entries[0]!.md?.length, 3);
});
