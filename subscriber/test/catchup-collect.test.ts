// Catch-up over real HTTP (M-7, RC-22..RC-25): list selection by interval overlap, document order,
// coverage proofs (closed until, entries past the end, an open list's HTTP Date) and lost history.
// The simulator captures and the quirks of real Sources are in catchup-collect-quirks.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dateTimeFromMillis, formatMillis } from '@rsnotify/shared';
import { collectChanges } from '../src/catchup/index.js';
import {
  CAPTURES,
  changeList,
  changeListIndex,
  d,
  setup,
  summary,
  T,
  xml,
} from './catchup-helpers.js';

test('M-7: a closed Change List covering the gap yields the changes inside it, in order, and coveredTo = to', async (t) => {
  const { src, http } = await setup(t);
  src.serve(
    '/cl.xml',
    changeList(src.baseUrl, { from: T(0), until: T(50) }, [
      { loc: '/a', change: 'created', datetime: T(5) },
      { loc: '/b', change: 'created', datetime: T(12) },
      { loc: '/a', change: 'updated', datetime: T(20) },
      { loc: '/c', change: 'deleted', datetime: T(29) },
      { loc: '/d', change: 'created', datetime: T(35) },
    ]),
    xml,
  );
  const r = await collectChanges(
    { changeListUrl: `${src.baseUrl}/cl.xml` },
    d(T(10)),
    d(T(30)),
    http,
  );
  assert.deepEqual(summary(r.changes, src.baseUrl), ['created /b', 'updated /a', 'deleted /c']);
  assert.equal(r.coveredTo?.key, d(T(30)).key);
  assert.equal(r.historyGone, false);
});

test('RC-25: changes exactly on the gap bounds are included (the mirror skips replays)', async (t) => {
  const { src, http } = await setup(t);
  src.serve(
    '/cl.xml',
    changeList(src.baseUrl, { from: T(0), until: T(50) }, [
      { loc: '/at-from', change: 'updated', datetime: T(10) },
      { loc: '/at-to', change: 'updated', datetime: T(30) },
      { loc: '/after', change: 'updated', datetime: T(31) },
    ]),
    xml,
  );
  const r = await collectChanges(
    { changeListUrl: `${src.baseUrl}/cl.xml` },
    d(T(10)),
    d(T(30)),
    http,
  );
  assert.deepEqual(summary(r.changes, src.baseUrl), ['updated /at-from', 'updated /at-to']);
});

test('M-7: a Change List lagging behind covers only up to its until; coveredTo < to', async (t) => {
  const { src, http } = await setup(t);
  src.serve(
    '/cl.xml',
    changeList(src.baseUrl, { from: T(0), until: T(20) }, [
      { loc: '/a', change: 'created', datetime: T(15) },
    ]),
    xml,
  );
  const r = await collectChanges(
    { changeListUrl: `${src.baseUrl}/cl.xml` },
    d(T(10)),
    d(T(30)),
    http,
  );
  assert.deepEqual(summary(r.changes, src.baseUrl), ['created /a']);
  assert.equal(r.coveredTo?.key, d(T(20)).key);
  assert.equal(r.historyGone, false);
});

test('RC-22: an open list covers up to its newest entry when the Source clock (Date) is not past the gap', async (t) => {
  const { src, http } = await setup(t);
  const now = Date.now();
  const future = (s: number): string => formatMillis(now + s * 1000);
  src.serve(
    '/open.xml',
    changeList(src.baseUrl, { from: formatMillis(now - 60_000) }, [
      { loc: '/a', change: 'created', datetime: formatMillis(now - 30_000) },
    ]),
    xml,
  );
  const r = await collectChanges(
    { changeListUrl: `${src.baseUrl}/open.xml` },
    d(formatMillis(now - 40_000)),
    d(future(3600)),
    http,
  );
  assert.deepEqual(summary(r.changes, src.baseUrl), ['created /a']);
  // Not X: the list may still grow up to X. At least the newest entry; at most the Date it was served.
  assert.ok(r.coveredTo !== undefined);
  assert.ok(r.coveredTo.epochMs >= now - 30_000 && r.coveredTo.epochMs <= Date.now());
});

test('RC-22: an open list served when the Source clock (HTTP Date) is past the gap proves coverage to the gap end', async (t) => {
  const { src, http } = await setup(t);
  const now = Date.now();
  src.serve(
    '/open.xml',
    changeList(src.baseUrl, { from: formatMillis(now - 60_000) }, [
      { loc: '/a', change: 'created', datetime: formatMillis(now - 50_000) },
    ]),
    xml,
  );
  const to = dateTimeFromMillis(now - 10_000);
  const r = await collectChanges(
    { changeListUrl: `${src.baseUrl}/open.xml` },
    d(formatMillis(now - 55_000)),
    to,
    http,
  );
  assert.deepEqual(summary(r.changes, src.baseUrl), ['created /a']);
  assert.equal(r.coveredTo?.key, to.key);
});

test('RC-24: from an index, only lists overlapping the gap are read, and an entry past the gap proves coverage', async (t) => {
  const { src, http } = await setup(t);
  src.serve(
    '/index.xml',
    changeListIndex(src.baseUrl, T(0), [
      { loc: '/cl1.xml', from: T(0), until: T(10) },
      { loc: '/cl2.xml', from: T(10), until: T(20) },
      { loc: '/cl3.xml', from: T(20) },
      { loc: '/cl4.xml', from: T(45) },
    ]),
    xml,
  );
  src.serve(
    '/cl1.xml',
    changeList(src.baseUrl, { from: T(0), until: T(10) }, [
      { loc: '/old', change: 'created', datetime: T(3) },
    ]),
    xml,
  );
  src.serve(
    '/cl2.xml',
    changeList(src.baseUrl, { from: T(10), until: T(20) }, [
      { loc: '/x', change: 'created', datetime: T(11) },
      { loc: '/y', change: 'created', datetime: T(16) },
    ]),
    xml,
  );
  src.serve(
    '/cl3.xml',
    changeList(src.baseUrl, { from: T(20) }, [
      { loc: '/y', change: 'updated', datetime: T(22) },
      { loc: '/z', change: 'created', datetime: T(40) },
    ]),
    xml,
  );
  const r = await collectChanges(
    { changeListUrl: `${src.baseUrl}/index.xml` },
    d(T(15)),
    d(T(30)),
    http,
  );
  assert.deepEqual(summary(r.changes, src.baseUrl), ['created /y', 'updated /y']);
  assert.equal(r.coveredTo?.key, d(T(30)).key);
  assert.equal(src.hits('/cl1.xml'), 0, 'a list entirely before the gap is not fetched');
  assert.equal(src.hits('/cl4.xml'), 0, 'a list entirely after the gap is not fetched');
});

test('RC-23: a change present in two lists (same uri, time, change) is taken once', async (t) => {
  const { src, http } = await setup(t);
  src.serve(
    '/index.xml',
    changeListIndex(src.baseUrl, T(0), [
      { loc: '/a.xml', from: T(0), until: T(20) },
      { loc: '/b.xml', from: T(20), until: T(40) },
    ]),
    xml,
  );
  src.serve(
    '/a.xml',
    changeList(src.baseUrl, { from: T(0), until: T(20) }, [
      { loc: '/edge', change: 'updated', datetime: T(20) },
    ]),
    xml,
  );
  src.serve(
    '/b.xml',
    changeList(src.baseUrl, { from: T(20), until: T(40) }, [
      { loc: '/edge', change: 'updated', datetime: T(20) },
      { loc: '/next', change: 'created', datetime: T(25) },
    ]),
    xml,
  );
  const r = await collectChanges(
    { changeListUrl: `${src.baseUrl}/index.xml` },
    d(T(5)),
    d(T(35)),
    http,
  );
  assert.deepEqual(summary(r.changes, src.baseUrl), ['updated /edge', 'created /next']);
  assert.equal(r.coveredTo?.key, d(T(35)).key);
});

test('M-7: history gone: the oldest list starts after the position', async (t) => {
  const { src, http } = await setup(t);
  src.serve(
    '/index.xml',
    changeListIndex(src.baseUrl, T(20), [{ loc: '/cl.xml', from: T(20) }]),
    xml,
  );
  src.serve(
    '/cl.xml',
    changeList(src.baseUrl, { from: T(20) }, [{ loc: '/a', change: 'created', datetime: T(25) }]),
    xml,
  );
  const r = await collectChanges(
    { changeListUrl: `${src.baseUrl}/index.xml` },
    d(T(10)),
    d(T(30)),
    http,
  );
  assert.equal(r.historyGone, true);
  assert.equal(r.coveredTo, undefined);
});

test('M-7: a hole between lists is lost history, not a lagging list', async (t) => {
  const { src, http } = await setup(t);
  src.serve(
    '/index.xml',
    changeListIndex(src.baseUrl, T(0), [
      { loc: '/a.xml', from: T(0), until: T(10) },
      { loc: '/b.xml', from: T(20) },
    ]),
    xml,
  );
  src.serve(
    '/a.xml',
    changeList(src.baseUrl, { from: T(0), until: T(10) }, [
      { loc: '/p', change: 'created', datetime: T(6) },
    ]),
    xml,
  );
  src.serve(
    '/b.xml',
    changeList(src.baseUrl, { from: T(20) }, [{ loc: '/q', change: 'created', datetime: T(25) }]),
    xml,
  );
  const r = await collectChanges(
    { changeListUrl: `${src.baseUrl}/index.xml` },
    d(T(5)),
    d(T(30)),
    http,
  );
  assert.equal(r.historyGone, true);
});

test('RC-23: entries without time are placed by document order', async (t) => {
  const { src, http } = await setup(t);
  src.serve(
    '/cl.xml',
    changeList(src.baseUrl, { from: T(0), until: T(50) }, [
      { loc: '/before', change: 'deleted' }, // older than the 5 s entry: already applied
      { loc: '/t5', change: 'created', datetime: T(5) },
      { loc: '/inside', change: 'deleted' }, // between 5 s and 15 s: maybe after P=10
      { loc: '/t15', change: 'created', datetime: T(15) },
      { loc: '/inside2', change: 'deleted' },
      { loc: '/t40', change: 'created', datetime: T(40) },
      { loc: '/beyond', change: 'deleted' }, // after the 40 s entry: beyond the gap end
    ]),
    xml,
  );
  const r = await collectChanges(
    { changeListUrl: `${src.baseUrl}/cl.xml` },
    d(T(10)),
    d(T(30)),
    http,
  );
  assert.deepEqual(summary(r.changes, src.baseUrl), [
    'deleted /inside',
    'created /t15',
    'deleted /inside2',
  ]);
  assert.equal(r.coveredTo?.key, d(T(30)).key);
});

test('polling: without `to`, everything after the position is collected and coverage reaches the list until', async (t) => {
  const { src, http } = await setup(t);
  src.serve(
    '/cl.xml',
    changeList(src.baseUrl, { from: T(0), until: T(50) }, [
      { loc: '/a', change: 'created', datetime: T(5) },
      { loc: '/b', change: 'created', datetime: T(45) },
    ]),
    xml,
  );
  const r = await collectChanges(
    { changeListUrl: `${src.baseUrl}/cl.xml` },
    d(T(1)),
    undefined,
    http,
  );
  assert.deepEqual(summary(r.changes, src.baseUrl), ['created /a', 'created /b']);
  assert.equal(r.coveredTo?.key, d(T(50)).key);
});

test('a URL that is not a Change List is refused with RSN_CATCHUP_NOT_CHANGELIST; a 500 with RSN_CATCHUP_HTTP_STATUS', async (t) => {
  const { src, http } = await setup(t);
  src.serve('/caps.xml', await readFile(`${CAPTURES}/sim-v1.1_capabilitylist.xml`), xml);
  await assert.rejects(
    collectChanges({ changeListUrl: `${src.baseUrl}/caps.xml` }, d(T(0)), d(T(1)), http),
    { code: 'RSN_CATCHUP_NOT_CHANGELIST' },
  );
  src.route('/down.xml', (_req, res) => {
    res.writeHead(500).end();
  });
  await assert.rejects(
    collectChanges({ changeListUrl: `${src.baseUrl}/down.xml` }, d(T(0)), d(T(1)), http),
    { code: 'RSN_CATCHUP_HTTP_STATUS' },
  );
});
