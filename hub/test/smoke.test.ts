// The shortest end-to-end path through the real hub: subscribe, verify, publish, deliver.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  hubFor,
  linkHeader,
  notificationXml,
  publish,
  receiverFor,
  subscribe,
  waitFor,
} from './helpers.js';

test('RT-4, RT-7, RT-15, M-4: a subscribed receiver gets the published notification verbatim', async (t) => {
  const { hub } = await hubFor(t);
  const receiver = await receiverFor(t);
  const topic = 'http://source.test/changes';
  const { token } = await hub.addSource('smoke', ['http://source.test/']);
  await subscribe(hub, receiver, topic, '/cb');
  const body = notificationXml('smoke', 2);
  const link = linkHeader(
    topic,
    hub.url,
    ', <http://source.test/capabilitylist.xml>; rel="resourcesync"',
  );
  const answer = await publish(hub.url, body, { link, authorization: `Bearer ${token}` });
  assert.equal(answer.status, 200, answer.text);
  const [d] = await waitFor(
    () => (receiver.deliveriesTo('/cb').length > 0 ? receiver.deliveriesTo('/cb') : undefined),
    'delivery',
  );
  assert.equal(d!.body.toString('utf8'), body);
  assert.equal(d!.headers['content-type'], 'application/xml');
  assert.equal(d!.headers.link, link);
  assert.equal(d!.headers['x-hub-signature'], undefined);
});
