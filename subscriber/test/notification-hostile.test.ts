// Hostile notification bodies at the subscriber, one row per case, each naming what it covers: the
// callback stores what the hub relays (202; a verdict on the body is not the hub's to retry), and
// the runner then refuses the body with its code (RN-14, RT-17: recorded as invalid, logged as
// notification.invalid, the position unmoved). The same bytes at the hub's publish are in
// hub/test/hostile.test.ts; fetched documents in discovery-bytes.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { at, notificationXml, resourceListXml, changeListXml, runnerRig } from './runner-fakes.js';

const HUB = 'http://hub.test/hub';

/** A valid notification whose resource path holds MARK, with MARK replaced by `bytes`. */
function withBytes(bytes: number[]): Buffer {
  const xml = notificationXml(10, 12, [{ path: 'a-MARK', change: 'updated', s: 11 }]);
  const at = xml.indexOf('MARK');
  return Buffer.concat([xml.subarray(0, at), Buffer.from(bytes), xml.subarray(at + 4)]);
}

interface Row {
  readonly covers: string;
  readonly body: Buffer;
  readonly code: string;
}

const ROWS: Row[] = [
  {
    covers: 'XML 1.0 §2.2: byte 0xFF is not UTF-8',
    body: withBytes([0xff]),
    code: 'RS_XML_NOT_UTF8',
  },
  { covers: 'overlong "/" (C0 AF)', body: withBytes([0xc0, 0xaf]), code: 'RS_XML_NOT_UTF8' },
  {
    covers: 'encoded surrogate U+D800 (ED A0 80)',
    body: withBytes([0xed, 0xa0, 0x80]),
    code: 'RS_XML_NOT_UTF8',
  },
  {
    covers: 'RN-1: <urlset> without the sitemap namespace',
    body: Buffer.from(
      notificationXml(10, 12, [{ path: 'a', change: 'updated', s: 11 }])
        .toString()
        .replace(' xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"', ''),
    ),
    code: 'RS_NAMESPACE_MISSING',
  },
];

test('hostile notification bodies are recorded invalid with their code and never move the position (table)', async () => {
  for (const row of ROWS) {
    const r = await runnerRig({ hub: HUB });
    r.source.serve('/resourcelist.xml', resourceListXml(10, ['a', 'b']));
    r.source.serve('/changelist.xml', changeListXml(5, undefined, []));
    r.runner.start();
    await r.runner.idle();
    const id = await r.repo.insertInbox({
      sourceId: r.runner.sourceId,
      receivedAt: r.clock.now,
      body: row.body,
      signature: 'unsigned',
    });
    r.runner.delivered(id, row.body, r.clock.now);
    await r.runner.idle();
    const inbox = r.repo.inbox.get(id);
    assert.equal(inbox?.state, 'invalid', row.covers);
    assert.match(String(inbox?.error), new RegExp(`^${row.code}`), row.covers);
    assert.deepEqual(
      r.events('notification.invalid').map((e) => e.code),
      [row.code],
      `${row.covers}: one notification.invalid line with the code`,
    );
    assert.equal(await r.syncedUntil(), at(10), `${row.covers}: the position stays`);
    assert.ok(
      !r.mirror.summary().some((line) => line.includes(' a-')),
      `${row.covers}: nothing applied to the mirror`,
    );
  }
});

test('control: the same notification with valid bytes is applied', async () => {
  const r = await runnerRig({ hub: HUB });
  r.source.serve('/resourcelist.xml', resourceListXml(10, ['a', 'b']));
  r.source.serve('/changelist.xml', changeListXml(5, undefined, []));
  r.runner.start();
  await r.runner.idle();
  const body = withBytes([...Buffer.from('€')]);
  const id = await r.repo.insertInbox({
    sourceId: r.runner.sourceId,
    receivedAt: r.clock.now,
    body,
    signature: 'unsigned',
  });
  r.runner.delivered(id, body, r.clock.now);
  await r.runner.idle();
  assert.equal(r.repo.inbox.get(id)?.state, 'applied');
  assert.equal(await r.syncedUntil(), at(12));
  assert.deepEqual(r.mirror.summary().slice(-1), ['updated a-€']);
});
