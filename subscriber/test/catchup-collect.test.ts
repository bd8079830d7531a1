// Catch-up over real HTTP (M-7, RC-22..RC-25): list selection by interval overlap, document order,
// coverage proofs (closed until, entries past the end, an open list's HTTP Date), lost history,
// and the simulator captures (rolling window, spec-1.0 mode).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { dateTimeFromMillis, formatMillis, parseDateTime, type DateTime } from '@rsnotify/shared';
import { collectChanges } from '../src/catchup/index.js';
import { createHttpGetter, type HttpGetter } from '../src/mirror/index.js';
import { startFakeSource, type FakeSource } from './mirror-helpers.js';

const CAPTURES = fileURLToPath(
  new URL('../../test/fixtures/resourcesync/simulator-captures', import.meta.url),
);
const d = (s: string): DateTime => parseDateTime(s);
const T = (sec: number): string => `2026-01-01T00:00:${String(sec).padStart(2, '0')}Z`;

interface E {
  loc: string;
  change: 'created' | 'updated' | 'deleted';
  datetime?: string;
  lastmod?: string;
}

function changeList(base: string, md: { from?: string; until?: string }, entries: E[]): string {
  const urls = entries
    .map(
      (e) =>
        `<url><loc>${base}${e.loc}</loc>${e.lastmod ? `<lastmod>${e.lastmod}</lastmod>` : ''}` +
        `<rs:md change="${e.change}"${e.datetime ? ` datetime="${e.datetime}"` : ''}/></url>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="${base}/capabilitylist.xml"/>
<rs:md capability="changelist"${md.from ? ` from="${md.from}"` : ''}${md.until ? ` until="${md.until}"` : ''}/>
${urls}
</urlset>`;
}

function changeListIndex(
  base: string,
  from: string,
  lists: { loc: string; from?: string; until?: string }[],
): string {
  const maps = lists
    .map(
      (l) =>
        `<sitemap><loc>${base}${l.loc}</loc>${l.from ? `<rs:md capability="changelist" from="${l.from}"${l.until ? ` until="${l.until}"` : ''}/>` : ''}</sitemap>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="${base}/capabilitylist.xml"/>
<rs:md capability="changelist" from="${from}"/>
${maps}
</sitemapindex>`;
}

async function setup(t: TestContext): Promise<{ src: FakeSource; http: HttpGetter }> {
  const src = await startFakeSource();
  const http = createHttpGetter({ allowPrivateNetworks: true });
  t.after(async () => {
    await http.close();
    await src.close();
  });
  return { src, http };
}

const xml = { 'content-type': 'application/xml' };
const summary = (changes: { uri: string; change: string }[], base: string): string[] =>
  changes.map((c) => `${c.change} ${c.uri.replace(base, '')}`);

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

// ---- simulator captures ----

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
    changeList(src.baseUrl, { from: T(0), until: T(50) }, [
      { loc: '/a', change: 'updated', lastmod: '2026-01-01T00:00:20' },
    ]),
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
