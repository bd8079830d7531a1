// Catch-up over real HTTP against what real Sources serve: the simulator captures (rolling window,
// spec-1.0 mode) and the quirks RC-21..RC-28 bend (lists without from, cut-short history, deletes
// without datetime, zone-less lastmod).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { collectChanges } from '../src/catchup/index.js';
import { CAPTURES, changeList, d, setup, summary, T, xml } from './catchup-helpers.js';

test('simulator capture (rolling window): a position inside the window yields the later changes', async (t) => {
  const { src, http } = await setup(t);
  src.serve(
    '/changelist.xml',
    await readFile(`${CAPTURES}/sim-v1.1-window10_changelist_t1.xml`),
    xml,
  );
  // The window runs 02:53:26.394765 .. 02:53:30.962076; entries every ~0.5 s.
  const r = await collectChanges(
    { changeListUrl: `${src.baseUrl}/changelist.xml` },
    d('2026-11-22T02:53:28.397318Z'),
    d('2026-11-22T02:53:30Z'),
    http,
  );
  assert.ok(r.changes.length > 0);
  for (const c of r.changes) {
    assert.ok(
      c.time!.key >= d('2026-11-22T02:53:28.397318Z').key &&
        c.time!.key <= d('2026-11-22T02:53:30Z').key,
    );
  }
  assert.equal(
    r.changes[0]!.uri,
    'http://127.0.0.1:8889/resources/69',
    'the boundary change is included',
  );
  assert.equal(r.coveredTo?.key, d('2026-11-22T02:53:30Z').key);
  assert.equal(r.historyGone, false);
});

test('simulator capture (rolling window moved on): a position before the window is lost history', async (t) => {
  const { src, http } = await setup(t);
  src.serve(
    '/changelist.xml',
    await readFile(`${CAPTURES}/sim-v1.1-window10_changelist_t2.xml`),
    xml,
  );
  // t2 starts at 02:53:31.404967; a position from t1's time is no longer covered.
  const r = await collectChanges(
    { changeListUrl: `${src.baseUrl}/changelist.xml` },
    d('2026-11-22T02:53:29Z'),
    d('2026-11-22T02:53:35Z'),
    http,
  );
  assert.equal(r.historyGone, true);
});

test('simulator capture (spec 1.0 mode): lastmod is the change time and timeless deletes are kept in order', async (t) => {
  const { src, http } = await setup(t);
  src.serve('/changelist.xml', await readFile(`${CAPTURES}/sim-v1.0_changelist.xml`), xml);
  const from = d('2026-11-22T02:53:26.157272Z'); // the list's from (and its first entry's lastmod)
  const r = await collectChanges(
    { changeListUrl: `${src.baseUrl}/changelist.xml` },
    from,
    undefined,
    http,
  );
  assert.deepEqual(
    r.changes.map((c) => `${c.change} ${c.uri.split('/').pop()}${c.time ? ' @' : ''}`),
    ['created 51 @', 'deleted 20', 'deleted 40', 'deleted 25', 'created 52 @'],
  );
  assert.equal(r.coveredTo?.key, d('2026-11-22T02:53:30.974292Z').key);
});

test('simulator capture (spec 1.1, full list): every change after the position, deduped, in document order', async (t) => {
  const { src, http } = await setup(t);
  const body = await readFile(`${CAPTURES}/sim-v1.1_changelist_t2.xml`, 'utf8');
  src.serve('/changelist.xml', body, xml);
  const times = [...body.matchAll(/datetime="([^"]+)"/g)].map((m) => m[1]!);
  const mid = times[Math.floor(times.length / 2)]!;
  const r = await collectChanges(
    { changeListUrl: `${src.baseUrl}/changelist.xml` },
    d(mid),
    undefined,
    http,
  );
  const expected = times.filter((x) => d(x).key >= d(mid).key).length;
  assert.equal(r.changes.length, expected);
  for (let i = 1; i < r.changes.length; i++)
    assert.ok(r.changes[i - 1]!.time!.key <= r.changes[i]!.time!.key, 'forward order kept');
});

test('RC-21/RC-24: a Change List without from, cut short past the position, is history gone (no-from)', async (t) => {
  const { src, http } = await setup(t);
  src.serve(
    '/cl.xml',
    changeList(src.baseUrl, { until: T(50) }, [
      { loc: '/a', change: 'updated', datetime: T(30) },
      { loc: '/b', change: 'updated', datetime: T(40) },
    ]),
    xml,
  );
  const r = await collectChanges(
    { changeListUrl: `${src.baseUrl}/cl.xml` },
    d(T(10)),
    undefined,
    http,
  );
  assert.equal(r.historyGone, true);
  assert.equal(r.historyGoneReason, 'no-from');
  assert.equal(r.coveredTo, undefined);
});

test('RC-21: a Change List without from that reaches back past the position proves coverage (no re-baseline)', async (t) => {
  const { src, http } = await setup(t);
  src.serve(
    '/cl.xml',
    changeList(src.baseUrl, { until: T(50) }, [
      { loc: '/a', change: 'updated', datetime: T(5) },
      { loc: '/b', change: 'updated', datetime: T(40) },
    ]),
    xml,
  );
  const r = await collectChanges(
    { changeListUrl: `${src.baseUrl}/cl.xml` },
    d(T(10)),
    undefined,
    http,
  );
  assert.equal(r.historyGone, false);
  assert.deepEqual(summary(r.changes, src.baseUrl), ['updated /b']);
  assert.equal(r.coveredTo?.key, d(T(50)).key);
});

test('RC-22: a Change List whose from is after the position is history gone (from-after-position)', async (t) => {
  const { src, http } = await setup(t);
  src.serve(
    '/cl.xml',
    changeList(src.baseUrl, { from: T(20), until: T(50) }, [
      { loc: '/b', change: 'updated', datetime: T(40) },
    ]),
    xml,
  );
  const r = await collectChanges(
    { changeListUrl: `${src.baseUrl}/cl.xml` },
    d(T(10)),
    undefined,
    http,
  );
  assert.equal(r.historyGoneReason, 'from-after-position');
});

test('RC-23/RC-25: deletes without datetime but an old lastmod, behind new entries, are collected', async (t) => {
  const { src, http } = await setup(t);
  src.serve(
    '/cl.xml',
    changeList(src.baseUrl, { from: T(0), until: T(50) }, [
      { loc: '/old', change: 'updated', datetime: T(5) },
      { loc: '/new', change: 'updated', datetime: T(20) },
      { loc: '/gone1', change: 'deleted', lastmod: T(1) },
      { loc: '/gone2', change: 'deleted', lastmod: T(2) },
    ]),
    xml,
  );
  const r = await collectChanges(
    { changeListUrl: `${src.baseUrl}/cl.xml` },
    d(T(10)),
    undefined,
    http,
  );
  assert.deepEqual(summary(r.changes, src.baseUrl), [
    'updated /new',
    'deleted /gone1',
    'deleted /gone2',
  ]);
  assert.equal(r.changes[1]!.time, undefined, 'a delete lastmod is not its change time');
});

test('RC-28 leniency: a zone-less lastmod in a served Change List is read as UTC instead of refusing the list', async (t) => {
  const { src, http } = await setup(t);
  src.serve(
    '/cl.xml',
    // The builder writes only W3C datetimes: the zone-less quirk is made by hand on its output.
    changeList(src.baseUrl, { from: T(0), until: T(50) }, [
      { loc: '/a', change: 'updated', lastmod: T(20) },
    ]).replace(`<lastmod>${T(20)}</lastmod>`, '<lastmod>2026-01-01T00:00:20</lastmod>'),
    xml,
  );
  const r = await collectChanges(
    { changeListUrl: `${src.baseUrl}/cl.xml` },
    d(T(10)),
    undefined,
    http,
  );
  assert.deepEqual(summary(r.changes, src.baseUrl), ['updated /a']);
  assert.equal(r.changes[0]!.time?.assumedUtc, true);
});
