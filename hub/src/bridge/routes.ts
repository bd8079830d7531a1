// HTTP surface of the bridge, under the hub endpoint's path:
//   GET {hub}/bridge?source=URL  -> the bridged channel of a Source (JSON: name, hub, topic), 404 if none
//   GET {hub}/bridge             -> every bridged channel (JSON)
//   GET {hub}/bridge/NAME        -> the topic itself (RT-2: 200, application/xml, Link rel=self and
//                                   rel=hub; RT-3: the newest notification, or an empty body)
// A refusal is named by its kind; app.ts's refusal table gives its status.
import type { Hono } from 'hono';
import { formatLinkHeader } from '@rsnotify/shared';
import { answerRefusal, answerRefusalJson } from '../app.js';
import type { BridgeService } from './service.js';

export function mountBridgeRoutes(
  app: Hono,
  hubPath: string,
  bridge: BridgeService,
  hubUrl: () => string,
): void {
  const base = `${hubPath.replace(/\/+$/, '')}/bridge`;
  app.get(base, async (c) => {
    const source = c.req.query('source');
    if (source === undefined) {
      const all = await bridge.list();
      return c.json({
        hub: hubUrl(),
        channels: all.map((b) => ({ name: b.name, topic: b.topic, source: b.pollUrl })),
      });
    }
    const found = await bridge.lookup(source);
    if (!found)
      return answerRefusalJson(c, 'not-found', {
        error: 'no bridged channel for this Source',
        source,
      });
    return c.json({
      name: found.name,
      hub: hubUrl(),
      topic: found.topic,
      source: found.pollUrl,
      ...(found.capabilityListUrl ? { capabilityList: found.capabilityListUrl } : {}),
      ...(found.changeListUrl ? { changeList: found.changeListUrl } : {}),
      pollIntervalMs: found.intervalMs,
    });
  });
  app.get(`${base}/:name`, (c) => {
    const name = c.req.param('name');
    if (!bridge.has(name)) return answerRefusal(c, 'not-found', 'no such bridged channel');
    const body = bridge.latest(name) ?? Buffer.alloc(0);
    const link = formatLinkHeader([
      { href: bridge.topicFor(name), rel: 'self' },
      { href: hubUrl(), rel: 'hub' },
    ]);
    return c.body(new Uint8Array(body), 200, {
      'content-type': 'application/xml',
      link,
      'cache-control': 'no-cache',
    });
  });
}
