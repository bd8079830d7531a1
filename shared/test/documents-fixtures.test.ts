// Every file under test/fixtures/resourcesync is accounted for here: each XML document parses into
// the kind, entry count and attributes in the table below (written from the files themselves, with
// Python's ElementTree as an independent reader), each other file is read by the helper it is for
// (Link headers, HTML/robots.txt discovery) or is listed as not a ResourceSync document and checked
// to be refused as one. A new fixture without a row fails the coverage test.
// The rows live in fixture-tables/, one file per fixture collection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DocumentError, formatHashList, parseDocument } from '@rsnotify/shared';
import {
  DOCUMENTS,
  FIXTURES,
  NOT_DOCUMENTS,
  REFUSED,
  listFiles,
  read,
} from './fixture-tables/index.js';

test('every fixture file has exactly one row (documents, refused, not documents)', async () => {
  const files = await listFiles(FIXTURES);
  assert.ok(files.length > 100, `found ${files.length} fixture files in ${FIXTURES}`);
  const rows = [
    ...Object.keys(DOCUMENTS),
    ...Object.keys(REFUSED),
    ...Object.keys(NOT_DOCUMENTS),
  ].sort();
  assert.deepEqual(rows, files);
});

test('RC-5, RC-3: every fixture document parses into its kind, entry count and attributes', async () => {
  for (const [file, want] of Object.entries(DOCUMENTS)) {
    const doc = parseDocument(await read(file));
    const at = `${file}`;
    assert.equal(doc.kind, want.kind, at);
    assert.equal(doc.entries.length, want.entries, at);
    for (const [name, value] of Object.entries(want.md ?? {})) {
      assert.equal(
        (doc.md as Record<string, { lexical: string } | undefined>)[name]?.lexical,
        value,
        `${at} rs:md/@${name}`,
      );
    }
    assert.deepEqual(
      doc.links.map((l) => l.rel),
      want.rels ?? [],
      `${at} rs:ln rels`,
    );
    if (want.first) {
      const e = doc.entries[0]!;
      const f = want.first;
      assert.equal(e.loc, f.loc, `${at} first loc`);
      if (f.lastmod !== undefined) assert.equal(e.lastmod?.lexical, f.lastmod, `${at} lastmod`);
      if (f.change !== undefined) assert.equal(e.md?.change, f.change, `${at} change`);
      if (f.capability !== undefined)
        assert.equal(e.md?.capability, f.capability, `${at} capability`);
      if (f.length !== undefined) assert.equal(e.md?.length, Number(f.length), `${at} length`);
      if (f.datetime !== undefined)
        assert.equal(e.md?.datetime?.lexical, f.datetime, `${at} datetime`);
      if (f.hash !== undefined) assert.equal(formatHashList(e.md!.hash!), f.hash, `${at} hash`);
      if (f.type !== undefined) assert.equal(e.md?.type, f.type, `${at} type`);
      if (f.path !== undefined) assert.equal(e.md?.path, f.path, `${at} path`);
    }
    if (want.lastLoc !== undefined)
      assert.equal(doc.entries.at(-1)!.loc, want.lastLoc, `${at} last loc`);
  }
});

test('fixtures refused on purpose fail with their code', async () => {
  for (const [file, { code, why }] of Object.entries(REFUSED)) {
    const text = await read(file);
    assert.throws(
      () => parseDocument(text),
      (e: unknown) => e instanceof DocumentError && e.code === code,
      `${file}: ${why}`,
    );
  }
});

test('RC-8, RC-9, WS-1: files that are not ResourceSync documents are refused as documents', async () => {
  for (const [file, { code, helper }] of Object.entries(NOT_DOCUMENTS)) {
    const text = await read(file);
    assert.throws(
      () => parseDocument(text),
      (e: unknown) => e instanceof DocumentError && e.code === code,
      `${file} (${helper})`,
    );
  }
});
