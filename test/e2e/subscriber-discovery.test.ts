// Discovery (RS §6.3) against the simulated Source over real HTTP: every route it offers leads to the
// same Capability List and channel (RA-5, WS-1, WS-2). The robots.txt route and the HTML-only route
// are covered with the shared fixtures in subscriber/test/discovery.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHttpGetter, discoverSource, pageFetcherFrom } from '@rsnotify/subscriber';
import { startSourceSimulator } from '../src/source-simulator/index.js';

test('every route of the simulated Source reaches its Capability List and change-notification channel', async (t) => {
  const sim = await startSourceSimulator({
    seed: 4,
    initialResources: 3,
    hubUrl: 'http://127.0.0.1:9/hub',
  });
  t.after(() => sim.close());
  const http = createHttpGetter({ allowPrivateNetworks: true });
  t.after(() => http.close());
  const fetcher = pageFetcherFrom(http);
  const resource = [...sim.snapshot().keys()][0]!;
  const cases: [string, string][] = [
    [sim.wellKnownUrl, 'well-known'],
    [sim.capabilityListUrl, 'capability-list'],
    [`${sim.baseUrl}/`, 'link-header'],
    [resource, 'link-header'],
    [sim.resourceListUrl, 'up-link'],
  ];
  for (const [url, route] of cases) {
    const d = await discoverSource(url, fetcher);
    assert.equal(d.route, route, url);
    assert.equal(d.capabilityListUrl, sim.capabilityListUrl, url);
    assert.equal(d.mode, 'push');
    assert.equal(d.channel?.topic, sim.topicUrl);
    assert.equal(d.channel?.hub, 'http://127.0.0.1:9/hub');
    assert.equal(d.channel?.via, 'link-header');
    assert.ok(d.resourceListUrl && d.changeListUrl);
  }
});
