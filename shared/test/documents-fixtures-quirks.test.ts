// Fixtures with the quirks the fixtures README lists: what real Sources write that the spec does not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDocument } from '@rsnotify/shared';
import { read } from './fixture-tables/index.js';

test('fixtures README quirks: relative loc resolves against the document URL', async () => {
  const doc = parseDocument(await read('resync-testdata/find/find1/.well-known/resourcesync'), {
    baseUrl: 'http://example.org/find1/.well-known/resourcesync',
  });
  assert.equal(doc.entries[0]!.loc, 'http://example.org/find1/data/capabilitylist.xml');
  const archive = parseDocument(
    await read('resync-testdata/archives1/dataset1/resourcelist-archive.xml'),
    { baseUrl: 'http://example.org/archives1/dataset1/resourcelist-archive.xml' },
  );
  assert.equal(archive.links[0]!.href, 'http://example.org/archives1/dataset1/capabilitylist.xml');
  assert.deepEqual(
    archive.entries.map((e) => e.loc.split('/').pop()),
    ['resourcelist1.xml', 'resourcelist2.xml', 'resourcelist3.xml'],
  );
});

test('fixtures README quirks: base64 MD5, non-spec rs:md attributes, deletes without any time, 6-digit fractions', async () => {
  const s2 = parseDocument(await read('destination-cases/s2/changelist.xml'));
  const md5 = s2.entries[0]!.md!.hash!.find((h) => h.algorithm === 'md5')!;
  assert.match(md5.value, /=$/, 'written as base64');
  assert.match(md5.hex!, /^[0-9a-f]{32}$/, 'decoded to hex');
  assert.equal(s2.md.from, undefined, 'missing from is tolerated by parseDocument');
  const caps = parseDocument(await read('resync-testdata/archives1/caps1.xml'));
  assert.deepEqual(
    caps.md.extra,
    { modified: '2013-11-27T14:00:00Z' },
    'rs:md modified kept in extra',
  );
  const description = parseDocument(await read('resync-testdata/archives1/resourcesync'));
  assert.deepEqual(
    description.md.extra,
    { modified: '2013-11-27' },
    'date-only value kept as written',
  );
  const v10 = parseDocument(await read('simulator-captures/sim-v1.0_changelist.xml'));
  const del = v10.entries.find((e) => e.md?.change === 'deleted')!;
  assert.equal(del.lastmod, undefined);
  assert.equal(del.md!.datetime, undefined);
  const v11 = parseDocument(await read('simulator-captures/sim-v1.1_changelist_t1.xml'));
  assert.equal(v11.entries[0]!.md!.datetime!.precision, 'fraction');
  assert.match(v11.entries[0]!.md!.datetime!.lexical, /\.\d{6}Z$/);
});
