// Fixtures that show the notification protocol: the spec's change notification (RN-1..RN-3), the
// Capability List advertising a channel (RA-1) and the hub-to-destination request head (RT-4, RT-15).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DocumentError,
  linksWithRel,
  notificationChannels,
  parseChangeNotification,
  parseDocument,
  parseLinkHeader,
  type CapabilityList,
} from '@rsnotify/shared';
import { read } from './fixture-tables/index.js';

test('RN-1..RN-3: the spec notification passes parseChangeNotification; the pre-1.0 payload does not (RN-2)', async () => {
  const n = parseChangeNotification(
    await read('notifications/spec-notification-1.0.1_ex1_change-notification.xml'),
  );
  assert.equal(n.from.lexical, '2013-01-03T00:00:00Z');
  assert.equal(n.until.lexical, '2013-01-03T00:10:00Z');
  assert.deepEqual(
    n.entries[1]!.md!.hash!.map((h) => h.algorithm),
    ['md5', 'sha-256'],
  );
  const legacy = await read('notifications/resourcesync_push_test-publish_payload.xml');
  assert.throws(
    () => parseChangeNotification(legacy),
    (e: unknown) =>
      e instanceof DocumentError && e.code === 'RS_NOTIFICATION_INVALID' && /RN-2/.test(e.message),
  );
  const malformed = await read(
    'notifications/resourcesync_push_publisher-template_MALFORMED-leading-newline.xml',
  );
  assert.throws(
    () => parseChangeNotification(malformed),
    (e: unknown) => e instanceof DocumentError && e.code === 'RS_XML_MALFORMED',
  );
});

test('RA-1: the Example 7 Capability List advertises one channel with its hub', async () => {
  const doc = parseDocument(
    await read(
      'notifications/spec-notification-1.0.1_ex7_capabilitylist-with-change-notification-channel.xml',
    ),
  );
  assert.deepEqual(notificationChannels(doc as CapabilityList), [
    { topic: 'http://example.com/dataset1/change/', hubs: ['http://hub.example.org/websub'] },
  ]); // Example 7 writes the hub without the trailing slash (digest: known defects)
});

test('RT-4, RT-15: the Example 6 request head carries self, hub and resourcesync in a folded Link header', async () => {
  const head = (
    await read('notifications/spec-notification-1.0.1_ex6_hub-to-destination-POST.http')
  ).split(/\r?\n\r?\n/)[0]!;
  // Unfold obs-fold continuation lines, then collect the Link header values.
  const lines = head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/);
  const linkValues = lines.filter((l) => /^link:/i.test(l)).map((l) => l.slice(l.indexOf(':') + 1));
  const links = parseLinkHeader(linkValues);
  assert.deepEqual(linksWithRel(links, 'self'), ['http://example.com/dataset1/change/']);
  assert.deepEqual(linksWithRel(links, 'hub'), ['http://hub.example.org/websub/']);
  assert.deepEqual(linksWithRel(links, 'resourcesync'), [
    'http://www.example.com/dataset1/capabilitylist.xml',
  ]);
  const simHead = await read('simulator-captures/sim-v1.1_resource-1.headers.txt');
  assert.deepEqual(parseLinkHeader(simHead.split(/\r?\n/).filter((l) => /^link:/i.test(l))), []);
});
