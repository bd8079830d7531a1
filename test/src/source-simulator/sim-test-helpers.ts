// Shared by the simulator's document tests: GETs over real HTTP, a simulator beside a capture hub,
// and a walk over the Change Lists that checks their links and tiling on the way (RC-24, RC-25).
import assert from 'node:assert/strict';
import { request } from 'undici';
import {
  compareDateTime,
  entryToChange,
  parseDocument,
  type Change,
  type ResourceSyncDocument,
} from '@rsnotify/shared';
import { startCaptureHub, type CaptureHub } from './capture-hub.js';
import { startSourceSimulator, type SimulatorOptions, type SourceSimulator } from './index.js';

export interface Fetched {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export async function get(url: string, method: 'GET' | 'HEAD' = 'GET'): Promise<Fetched> {
  const res = await request(url, { method });
  const body = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, body };
}

export async function getDoc(url: string): Promise<ResourceSyncDocument> {
  const r = await get(url);
  assert.equal(r.status, 200, `GET ${url}`);
  assert.equal(r.headers['content-type'], 'application/xml', `content type of ${url}`);
  return parseDocument(r.body.toString('utf8'), { baseUrl: url });
}

export const link = (doc: ResourceSyncDocument, rel: string) =>
  doc.links.find((l) => l.rel === rel)?.href;

export async function setup(
  t: { after: (fn: () => Promise<void>) => void },
  options: SimulatorOptions = {},
): Promise<{ sim: SourceSimulator; hub: CaptureHub }> {
  const hub = await startCaptureHub();
  const sim = await startSourceSimulator({
    seed: 11,
    initialResources: 12,
    hubUrl: hub.url,
    token: 'source-token',
    ...options,
  });
  t.after(async () => {
    await sim.close();
    await hub.close();
  });
  return { sim, hub };
}

/** Every change of the Change Lists, walked from the index, checking list links and tiling. */
export async function walkChangeLists(
  sim: SourceSimulator,
): Promise<{ index: ResourceSyncDocument; lists: ResourceSyncDocument[]; changes: Change[] }> {
  const index = await getDoc(sim.changeListIndexUrl);
  assert.equal(index.kind, 'change-list-index');
  assert.equal(link(index, 'up'), sim.capabilityListUrl, 'index rel="up" -> Capability List');
  assert.equal(
    index.md.from?.lexical,
    index.entries[0]?.md?.from?.lexical,
    "RC-24: the index from is its first list's from",
  );
  const lists: ResourceSyncDocument[] = [];
  const changes: Change[] = [];
  for (const [i, entry] of index.entries.entries()) {
    const list = await getDoc(entry.loc);
    assert.equal(list.kind, 'change-list');
    assert.equal(link(list, 'up'), sim.capabilityListUrl, 'list rel="up" -> Capability List');
    assert.equal(
      link(list, 'index'),
      sim.changeListIndexUrl,
      'list rel="index" -> Change List Index',
    );
    assert.equal(list.md.from?.lexical, entry.md?.from?.lexical, 'index from = list from');
    assert.equal(list.md.until?.lexical, entry.md?.until?.lexical, 'index until = list until');
    const last = i === index.entries.length - 1;
    assert.equal(list.md.until === undefined, last, 'RC-24: only the last list is open');
    if (i > 0)
      assert.equal(
        list.md.from!.lexical,
        lists[i - 1]!.md.until!.lexical,
        'lists tile time: from = previous until',
      );
    for (const e of list.entries) {
      const c = entryToChange(e)!;
      if (c.time) {
        assert.ok(compareDateTime(list.md.from!, c.time) < 0, 'RC-25: from < datetime');
        if (list.md.until)
          assert.ok(compareDateTime(c.time, list.md.until) < 0, 'RC-25: datetime < until');
      }
      changes.push(c);
    }
    lists.push(list);
  }
  return { index, lists, changes };
}

export const changeKey = (c: Change) =>
  `${c.change} ${c.uri} ${c.time?.lexical ?? '-'} ${c.length ?? '-'} ${c.hash?.map((h) => h.value).join(',') ?? '-'}`;
