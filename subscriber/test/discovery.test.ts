// Discovery through every route of RS §6.3 (RC-7..RC-9) and WebSub discovery on the topic (RT-2,
// WS-1..WS-3), against the fixtures of test/fixtures/resourcesync served over real HTTP on 127.0.0.1. The fixtures carry
// absolute URLs of their original host (http://source.example.org/...); the server rewrites
// that prefix to its own address, and adds the few documents the fixtures only point at.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHttpGetter } from '../src/mirror/index.js';
import { discoverSource, pageFetcherFrom, type DiscoveryError } from '../src/discovery/index.js';
import { resourceSyncXml } from '@rsnotify/service-kit/testing';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/resourcesync/', import.meta.url));
const http = createHttpGetter({ allowPrivateNetworks: true });
const fetcher = pageFetcherFrom(http);
const servers: Server[] = [];
after(async () => {
  await http.close();
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

type RouteAnswer = {
  status?: number;
  type?: string;
  body?: string;
  headers?: Record<string, string | undefined>;
};
type Route = (req: IncomingMessage, base: string) => RouteAnswer | undefined;

async function serve(route: Route): Promise<string> {
  let base = '';
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const out = route(req, base);
    if (!out) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(out.status ?? 200, {
      'content-type': out.type ?? 'application/xml',
      ...out.headers,
    });
    res.end(req.method === 'HEAD' ? undefined : (out.body ?? ''));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return base;
}

function fixture(
  path: string,
  base: string,
  originalPrefix = 'http://source.example.org/',
): string {
  return readFileSync(join(FIXTURES, path), 'utf8').split(originalPrefix).join(`${base}/`);
}

/** The destination-cases discovery tree, rooted at /discover/... as in its original host. */
const destinationCases: Route = (req, base) => {
  const url = new URL(req.url!, base);
  const p = url.pathname;
  if (p === '/discover/loc1/capabilitylist.xml')
    return { body: fixture('destination-cases/discover/loc1/capabilitylist.xml', base) };
  if (p === '/discover/loc1/page.html')
    return { type: 'text/html', body: fixture('destination-cases/discover/loc1/page.html', base) };
  if (p === '/discover/loc1/corrupt_page.html')
    return {
      type: 'text/html',
      body: fixture('destination-cases/discover/loc1/corrupt_page.html', base),
    };
  if (p === '/discover/loc1/unparsable.html')
    return {
      type: 'text/plain',
      body: fixture('destination-cases/discover/loc1/unparsable.html', base),
    };
  if (p === '/discover/loc1/header_page.html') {
    // RC-8: the same page, but the link travels in an HTTP Link header.
    return {
      type: 'text/html',
      body: fixture('destination-cases/discover/loc1/header_page.html', base),
      headers: { link: `<${base}/discover/loc1/capabilitylist.xml>; rel="resourcesync"` },
    };
  }
  if (p === '/robots.txt')
    return {
      type: 'text/plain',
      body: fixture('destination-cases/discover/loc2/robots.txt', base),
    };
  if (p === '/discover/loc2/dataset1/resourcelist.xml') {
    // robots.txt points here; the fixtures do not include it, so it is written here (RC-9: up -> Capability List).
    return {
      body: resourceSyncXml({
        capability: 'resourcelist',
        md: { at: '2020-01-01T00:00:00Z' },
        links: [{ rel: 'up', href: `${base}/discover/loc1/capabilitylist.xml` }],
        entries: [{ loc: `${base}/r1` }],
      }),
    };
  }
  return undefined;
};

test('RC-11: a Capability List URL is used as is; without a channel the source runs in polling mode', async () => {
  const base = await serve(destinationCases);
  const d = await discoverSource(`${base}/discover/loc1/capabilitylist.xml`, fetcher);
  assert.equal(d.route, 'capability-list');
  assert.equal(d.capabilityListUrl, `${base}/discover/loc1/capabilitylist.xml`);
  assert.equal(d.resourceListUrl, `${base}/discover/loc1/resourcelist.xml`);
  assert.equal(d.changeListUrl, `${base}/discover/loc1/changelist.xml`);
  assert.equal(d.mode, 'poll');
  assert.equal(d.channel, undefined);
});

test('RC-8: an HTML page with <link rel="resourcesync"> in its head leads to the Capability List', async () => {
  const base = await serve(destinationCases);
  const d = await discoverSource(`${base}/discover/loc1/page.html`, fetcher);
  assert.equal(d.route, 'html-link');
  assert.equal(d.capabilityListUrl, `${base}/discover/loc1/capabilitylist.xml`);
});

test('RC-8: an HTTP Link header rel="resourcesync" leads to the Capability List', async () => {
  const base = await serve(destinationCases);
  const d = await discoverSource(`${base}/discover/loc1/header_page.html`, fetcher);
  assert.equal(d.route, 'link-header');
  assert.equal(d.capabilityListUrl, `${base}/discover/loc1/capabilitylist.xml`);
});

test('RC-9: robots.txt Sitemap: -> Resource List -> up -> Capability List (after a page with a broken link)', async () => {
  const base = await serve(destinationCases);
  // corrupt_page.html has `hef=` instead of `href=`; the site's well-known URI uses file:// URIs
  // (refused); robots.txt is what is left. Its second Sitemap line (example.com) is never needed.
  const d = await discoverSource(`${base}/discover/loc1/corrupt_page.html`, fetcher);
  assert.equal(d.route, 'robots.txt');
  assert.equal(d.capabilityListUrl, `${base}/discover/loc1/capabilitylist.xml`);
  assert.ok(d.steps.some((s) => s.note.includes('without <link rel="resourcesync">')));
});

test('no route at all: RSN_DISCOVERY_FAILED with the steps tried', async () => {
  const base = await serve((req, b) =>
    new URL(req.url!, b).pathname === '/page.txt'
      ? { type: 'text/plain', body: 'This is no html.' }
      : undefined,
  );
  await assert.rejects(discoverSource(`${base}/page.txt`, fetcher), (err: DiscoveryError) => {
    assert.equal(err.code, 'RSN_DISCOVERY_FAILED');
    const steps = (err.details.steps as { url: string }[]).map((s) => s.url);
    assert.ok(steps.includes(`${base}/.well-known/resourcesync`));
    assert.ok(steps.includes(`${base}/robots.txt`));
    return true;
  });
});

/** resync's find1 tree as the root of a site: /.well-known/resourcesync with relative locs. */
const find1: Route = (req, base) => {
  const p = new URL(req.url!, base).pathname;
  if (p === '/.well-known/resourcesync')
    return { body: fixture('resync-testdata/find/find1/.well-known/resourcesync', base) };
  if (p === '/data/capabilitylist.xml')
    return { body: fixture('resync-testdata/find/find1/data/capabilitylist.xml', base) };
  if (p === '/data/resourcelist.xml')
    return { body: fixture('resync-testdata/find/find1/data/resourcelist.xml', base) };
  if (p === '/')
    return {
      type: 'text/html',
      body: '<html><head><title>home</title></head><body>no links</body></html>',
    };
  return undefined;
};

test('RC-7: the well-known URI of the host (Source Description, relative loc) is tried when the page says nothing', async () => {
  const base = await serve(find1);
  const d = await discoverSource(`${base}/`, fetcher);
  assert.equal(d.route, 'well-known');
  assert.equal(d.sourceDescriptionUrl, `${base}/.well-known/resourcesync`);
  assert.equal(d.capabilityListUrl, `${base}/data/capabilitylist.xml`);
  assert.equal(d.resourceListUrl, `${base}/data/resourcelist.xml`);
});

test('RC-10: a Source Description given directly leads to its Capability List', async () => {
  const base = await serve(find1);
  const d = await discoverSource(`${base}/.well-known/resourcesync`, fetcher);
  assert.equal(d.capabilityListUrl, `${base}/data/capabilitylist.xml`);
  assert.equal(d.sourceDescriptionUrl, `${base}/.well-known/resourcesync`);
});

/** A Capability List with a change-notification channel (RS-CN Example 7) and a topic resource. */
function channelSite(topicBehaviour: 'links' | 'no-links' | 'redirect' | 'down'): Route {
  return (req, base) => {
    const p = new URL(req.url!, base).pathname;
    if (p === '/dataset1/capabilitylist.xml') {
      const xml = fixture(
        'notifications/spec-notification-1.0.1_ex7_capabilitylist-with-change-notification-channel.xml',
        base,
        'http://example.com/',
      )
        .split('http://hub.example.org/websub')
        .join(`${base}/advertised-hub`);
      return { body: xml };
    }
    if (p === '/dataset1/change/') {
      if (topicBehaviour === 'links')
        return {
          body: '',
          headers: {
            link: `<${base}/canonical-topic>; rel="self", <${base}/real-hub>; rel="hub"`,
            'content-length': '0',
          },
        };
      if (topicBehaviour === 'no-links') return { body: '' };
      if (topicBehaviour === 'redirect')
        return { status: 301, headers: { location: `${base}/moved/change/` } };
      return { status: 503, type: 'text/plain', body: 'down' };
    }
    if (p === '/moved/change/')
      return {
        body: '',
        headers: { link: `<${base}/moved/change/>; rel="self", <${base}/real-hub>; rel="hub"` },
      };
    return undefined;
  };
}

test("RA-5/WS-1/WS-2: the topic's Link rel=self becomes hub.topic and its rel=hub wins over the advertised hub", async () => {
  const base = await serve(channelSite('links'));
  const d = await discoverSource(`${base}/dataset1/capabilitylist.xml`, fetcher);
  assert.equal(d.mode, 'push');
  assert.equal(d.channel?.advertisedTopic, `${base}/dataset1/change/`);
  assert.deepEqual(d.channel?.advertisedHubs, [`${base}/advertised-hub`]);
  assert.equal(d.channel?.topic, `${base}/canonical-topic`);
  assert.equal(d.channel?.hub, `${base}/real-hub`);
  assert.equal(d.channel?.via, 'link-header');
});

test('WS-3: redirects on the topic are followed and the final self is used', async () => {
  const base = await serve(channelSite('redirect'));
  const d = await discoverSource(`${base}/dataset1/capabilitylist.xml`, fetcher);
  assert.equal(d.channel?.topic, `${base}/moved/change/`);
  assert.equal(d.channel?.hub, `${base}/real-hub`);
});

test("RA-1: without Link headers on the topic (or with the topic down) the Capability List's rs:ln rel=hub is used", async () => {
  for (const behaviour of ['no-links', 'down'] as const) {
    const base = await serve(channelSite(behaviour));
    const d = await discoverSource(`${base}/dataset1/capabilitylist.xml`, fetcher);
    assert.equal(d.mode, 'push', behaviour);
    assert.equal(d.channel?.topic, `${base}/dataset1/change/`, behaviour);
    assert.equal(d.channel?.hub, `${base}/advertised-hub`, behaviour);
    assert.equal(d.channel?.via, 'capability-list', behaviour);
  }
});

test('WS-18: an https hub is preferred when several are advertised', async () => {
  const { chooseHub } = await import('../src/discovery/index.js');
  assert.equal(chooseHub(['http://a.test/hub', 'https://b.test/hub']), 'https://b.test/hub');
  assert.equal(chooseHub(['http://a.test/hub', 'http://b.test/hub']), 'http://a.test/hub');
  assert.equal(chooseHub([]), undefined);
});
