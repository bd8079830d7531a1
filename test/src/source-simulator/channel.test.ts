// The `dropChannel` switch: while on, the Capability List advertises no change-notification channel,
// the topic names no hub and nothing is posted (the changes still reach the Change Lists); switched
// off, all of it comes back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startCaptureHub, startSourceSimulator } from './index.js';

async function get(url: string): Promise<{ text: string; link: string }> {
  const res = await request(url);
  return { text: await res.body.text(), link: String(res.headers.link ?? '') };
}

test('dropChannel removes the channel and stops posting; switching it off restores both', async (t) => {
  const hub = await startCaptureHub();
  const sim = await startSourceSimulator({ seed: 3, initialResources: 5, hubUrl: hub.url });
  t.after(async () => {
    await sim.close();
    await hub.close();
  });
  const advertised = async () =>
    (await get(sim.capabilityListUrl)).text.includes('change-notification');
  assert.equal(await advertised(), true);

  sim.faults.dropChannel = 1;
  assert.equal(await advertised(), false, 'no channel in the Capability List');
  assert.doesNotMatch((await get(sim.topicUrl)).link, /rel="?hub/, 'no hub on the topic');
  await sim.changeBatch(3);
  await sim.flush();
  assert.equal(hub.received.length, 0, 'nothing posted');
  assert.equal(sim.postLog().at(-1)?.fate, 'no-hub');
  assert.match((await get(sim.changeListIndexUrl)).text, /changelist/, 'the Change Lists go on');

  sim.faults.dropChannel = 0;
  assert.equal(await advertised(), true, 'the channel is back');
  assert.match((await get(sim.topicUrl)).link, /rel="?hub/);
  await sim.changeBatch(3);
  await sim.flush();
  assert.equal(hub.received.length, 1, 'posting again');
});
