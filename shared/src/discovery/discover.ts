// Discovery (RS §6.3, RC-7..RC-9, RA-5, WS-1..WS-3): from any URL of a Source down to its Capability
// List, then WebSub discovery on the change-notification topic. Every route is tried in a fixed
// order and each step is recorded so `discover URL` can say what was found and how.
import { RsnotifyError, describeError } from '../errors/index.js';
import {
  extractEmbeddedLinks,
  extractRobotsSitemaps,
  firstLinkWithRel,
  linksWithRel,
  parseLinkHeader,
  type WebLink,
} from '../links/index.js';
import {
  notificationChannels,
  parseDocument,
  type CapabilityList,
  type ResourceSyncDocument,
} from '../documents/index.js';
import type { FetchedPage, PageFetcher } from './fetch.js';
import type { SHARED_ERRORS, CodesOf } from '../errors/index.js';

export type DiscoveryRoute =
  | 'capability-list'
  | 'source-description'
  | 'well-known'
  | 'link-header'
  | 'html-link'
  | 'robots.txt'
  | 'up-link';

export interface DiscoveryStep {
  readonly url: string;
  readonly note: string;
}

export interface DiscoveredChannel {
  /** `<loc>` of the Capability List's change-notification entry (RA-1). */
  readonly advertisedTopic: string;
  readonly advertisedHubs: readonly string[];
  /** WS-2: the topic's rel=self, else the advertised topic. This is `hub.topic`. */
  readonly topic: string;
  /** The hub chosen (https preferred, WS-18) among `hubs`. */
  readonly hub: string;
  readonly hubs: readonly string[];
  /** Where self/hub came from (WS-1), or named in the config / found by asking a hub's bridge. */
  readonly via: 'link-header' | 'embedded-link' | 'capability-list' | 'configured' | 'hub-bridge';
}

export interface Discovery {
  readonly inputUrl: string;
  readonly route: DiscoveryRoute;
  readonly sourceDescriptionUrl?: string;
  readonly capabilityListUrl: string;
  /** Other Capability Lists a Source Description offered (the first was taken). */
  readonly otherCapabilityLists: readonly string[];
  readonly resourceListUrl?: string;
  readonly changeListUrl?: string;
  readonly channel?: DiscoveredChannel;
  /** 'push' with a channel; 'poll' on the Change List without one. */
  readonly mode: 'push' | 'poll';
  readonly steps: readonly DiscoveryStep[];
}

/** A document on the way that looked like XML but was refused by the strict parser. */
export interface RefusedDocument {
  readonly url: string;
  /** The parser's code, e.g. RS_XML_NOT_UTF8, RS_XML_MALFORMED. */
  readonly code: string;
  readonly message: string;
}

export class DiscoveryError extends RsnotifyError<CodesOf<typeof SHARED_ERRORS, 'DiscoveryError'>> {
  constructor(
    url: string,
    message: string,
    steps: readonly DiscoveryStep[],
    refused: readonly RefusedDocument[] = [],
  ) {
    // The documents refused on the way are often the reason nothing was found: name them and their
    // codes in the message (the Source's last error shows it).
    const why = refused.map((r) => `${r.url} refused: ${r.code} (${r.message})`).join('; ');
    super('RSN_DISCOVERY_FAILED', `${url}: ${message}${why ? `; ${why}` : ''}`, {
      details: { url, steps, ...(refused.length > 0 ? { refused } : {}) },
    });
    this.name = 'DiscoveryError';
  }
}

interface Found {
  readonly route: DiscoveryRoute;
  readonly capabilityListUrl: string;
  readonly capabilityList: CapabilityList;
  readonly sourceDescriptionUrl?: string;
  readonly otherCapabilityLists: readonly string[];
}

const XML_TYPES = /(^|\/|\+)xml$/;

function looksLikeXml(page: FetchedPage): boolean {
  if (XML_TYPES.test(page.contentType)) return true;
  const head = page.text.slice(0, 512).trimStart();
  return head.startsWith('<?xml') || head.startsWith('<urlset') || head.startsWith('<sitemapindex');
}

function looksLikeHtml(page: FetchedPage): boolean {
  return (
    page.contentType === 'text/html' ||
    page.contentType === 'application/xhtml+xml' ||
    /^\s*(<!doctype html|<html)/i.test(page.text.slice(0, 512))
  );
}

/** Prefers an https hub (WS-18), otherwise keeps document order. */
export function chooseHub(hubs: readonly string[]): string | undefined {
  return hubs.find((h) => h.startsWith('https:')) ?? hubs[0];
}

/** What the topic's own links say (WS-1: Link headers first, embedded links only without them). */
export function topicLinks(
  page: FetchedPage,
): { links: WebLink[]; via: 'link-header' | 'embedded-link' } | undefined {
  const header = parseLinkHeader(page.headers.link as string | string[] | undefined, page.url);
  if (header.some((l) => l.rels.includes('self') || l.rels.includes('hub')))
    return { links: header, via: 'link-header' };
  if (
    page.text &&
    (looksLikeHtml(page) || /(atom|rss)/.test(page.contentType) || looksLikeXml(page))
  ) {
    const embedded = extractEmbeddedLinks(page.text, page.url);
    if (embedded.some((l) => l.rels.includes('self') || l.rels.includes('hub')))
      return { links: embedded, via: 'embedded-link' };
  }
  return undefined;
}

export async function discoverSource(inputUrl: string, fetcher: PageFetcher): Promise<Discovery> {
  const steps: DiscoveryStep[] = [];
  const note = (url: string, text: string): void => {
    steps.push({ url, note: text });
  };
  const refused: RefusedDocument[] = [];
  /** The page as a ResourceSync document: parsed from its bytes by the one strict parser. */
  const tryParse = (page: FetchedPage): ResourceSyncDocument | undefined => {
    if (!looksLikeXml(page)) return undefined;
    try {
      return parseDocument(page.body ?? page.text, { baseUrl: page.url });
    } catch (err) {
      const e = describeError(err);
      const code = e.code ?? 'unparsable';
      refused.push({ url: page.url, code, message: e.message });
      note(page.url, `refused: ${code} (${e.message})`);
      return undefined;
    }
  };

  const get = async (url: string): Promise<FetchedPage | undefined> => {
    try {
      const page = await fetcher.fetch(url);
      if (page.redirects.length > 0) note(url, `redirected to ${page.url}`);
      if (page.status !== 200) {
        note(page.url, `HTTP ${page.status}`);
        return undefined;
      }
      return page;
    } catch (err) {
      note(url, `not fetched: ${(err as Error).message}`);
      return undefined;
    }
  };

  /** Follows a document to its Capability List: itself, a Source Description's first list, or `up`. */
  const fromDocument = async (
    page: FetchedPage,
    doc: ResourceSyncDocument,
    route: DiscoveryRoute,
    depth = 0,
  ): Promise<Found | undefined> => {
    if (depth > 4) return undefined;
    if (doc.kind === 'capability-list') {
      note(page.url, 'Capability List');
      const up = doc.links.find((l) => l.rel === 'up')?.href;
      return {
        route,
        capabilityListUrl: page.url,
        capabilityList: doc as CapabilityList,
        otherCapabilityLists: [],
        ...(up ? { sourceDescriptionUrl: up } : {}),
      };
    }
    if (doc.kind === 'source-description' || doc.kind === 'source-description-index') {
      const lists = doc.entries
        .filter(
          (e) =>
            e.md?.capability ===
            (doc.kind === 'source-description' ? 'capabilitylist' : 'description'),
        )
        .map((e) => e.loc);
      note(
        page.url,
        `${doc.kind === 'source-description' ? 'Source Description' : 'Source Description Index'} listing ${lists.length} ${doc.kind === 'source-description' ? 'Capability List(s)' : 'Source Description(s)'}`,
      );
      for (const loc of lists) {
        const next = await get(loc);
        const nextDoc = next && tryParse(next);
        if (!next || !nextDoc) continue;
        const found = await fromDocument(next, nextDoc, route, depth + 1);
        if (found) {
          return {
            ...found,
            sourceDescriptionUrl:
              doc.kind === 'source-description' ? page.url : found.sourceDescriptionUrl,
            otherCapabilityLists: lists.filter((l) => l !== loc),
          } as Found;
        }
      }
      return undefined;
    }
    // Any other list (Resource List, Change List, their indexes, dumps): `up` leads to the
    // Capability List (RC-6, RC-9).
    const up = doc.links.find((l) => l.rel === 'up')?.href;
    note(page.url, `${doc.kind}${up ? `, up -> ${up}` : ' without rel="up"'}`);
    if (!up) return undefined;
    const next = await get(up);
    const nextDoc = next && tryParse(next);
    if (!next || !nextDoc) return undefined;
    return fromDocument(next, nextDoc, route === 'robots.txt' ? route : 'up-link', depth + 1);
  };

  /** A page of the Source: a document itself, or a Link header / HTML link to a Capability List (RC-8). */
  const fromPage = async (
    url: string,
    route: DiscoveryRoute | undefined,
  ): Promise<Found | undefined> => {
    const page = await get(url);
    if (!page) return undefined;
    const doc = tryParse(page);
    if (doc) {
      const r: DiscoveryRoute =
        route ??
        (new URL(page.url).pathname === '/.well-known/resourcesync'
          ? 'well-known'
          : doc.kind === 'capability-list'
            ? 'capability-list'
            : doc.kind.startsWith('source-description')
              ? 'source-description'
              : 'up-link');
      return fromDocument(page, doc, r);
    }
    const headerLink = firstLinkWithRel(
      parseLinkHeader(page.headers.link as string | string[] | undefined, page.url),
      'resourcesync',
    );
    if (headerLink) {
      note(page.url, `Link header rel="resourcesync" -> ${headerLink}`);
      const next = await get(headerLink);
      const nextDoc = next && tryParse(next);
      if (next && nextDoc) return fromDocument(next, nextDoc, 'link-header');
    }
    if (looksLikeHtml(page)) {
      const htmlLink = linksWithRel(extractEmbeddedLinks(page.text, page.url), 'resourcesync')[0];
      if (htmlLink) {
        note(page.url, `HTML <link rel="resourcesync"> -> ${htmlLink}`);
        const next = await get(htmlLink);
        const nextDoc = next && tryParse(next);
        if (next && nextDoc) return fromDocument(next, nextDoc, 'html-link');
      } else {
        note(page.url, 'HTML page without <link rel="resourcesync">');
      }
    } else if (!headerLink) {
      note(page.url, `not a ResourceSync document (${page.contentType || 'no content type'})`);
    }
    return undefined;
  };

  let found = await fromPage(inputUrl, undefined);
  const origin = new URL(inputUrl).origin;
  if (!found) {
    // RC-7: the well-known URI of the Source's host.
    const wellKnown = `${origin}/.well-known/resourcesync`;
    if (wellKnown !== inputUrl) found = await fromPage(wellKnown, 'well-known');
  }
  if (!found) {
    // RC-9: robots.txt Sitemap: -> Resource List -> up -> Capability List.
    const robotsUrl = `${origin}/robots.txt`;
    const robots = await get(robotsUrl);
    if (robots) {
      const sitemaps = extractRobotsSitemaps(robots.text, robots.url);
      note(robots.url, `robots.txt with ${sitemaps.length} Sitemap: line(s)`);
      for (const sm of sitemaps) {
        found = await fromPage(sm, 'robots.txt');
        if (found) break;
      }
    }
  }
  if (!found)
    throw new DiscoveryError(
      inputUrl,
      'no Capability List found by any route (document, Link header, HTML link, well-known URI, robots.txt)',
      steps,
      refused,
    );

  const capList = found.capabilityList;
  const entryFor = (capability: string): string | undefined =>
    capList.entries.find((e) => e.md?.capability === capability)?.loc;
  const resourceListUrl = entryFor('resourcelist');
  const changeListUrl = entryFor('changelist');

  let channel: DiscoveredChannel | undefined;
  const advertised = notificationChannels(capList)[0];
  if (advertised) {
    note(
      found.capabilityListUrl,
      `change-notification channel: topic ${advertised.topic}, hub(s) ${advertised.hubs.join(' ') || '(none)'}`,
    );
    channel = await discoverTopic(advertised.topic, advertised.hubs, fetcher, note);
  } else {
    note(
      found.capabilityListUrl,
      'no change-notification channel: polling mode on the Change List',
    );
  }

  return {
    inputUrl,
    route: found.route,
    ...(found.sourceDescriptionUrl ? { sourceDescriptionUrl: found.sourceDescriptionUrl } : {}),
    capabilityListUrl: found.capabilityListUrl,
    otherCapabilityLists: found.otherCapabilityLists,
    ...(resourceListUrl ? { resourceListUrl } : {}),
    ...(changeListUrl ? { changeListUrl } : {}),
    ...(channel ? { channel } : {}),
    mode: channel ? 'push' : 'poll',
    steps,
  };
}

/**
 * WebSub discovery on the topic (RT-2, WS-1, WS-2, WS-3): HEAD then GET, Link rel=self and rel=hub
 * win over what the Capability List advertised; without them the advertised values are used.
 */
async function discoverTopic(
  advertisedTopic: string,
  advertisedHubs: readonly string[],
  fetcher: PageFetcher,
  note: (url: string, text: string) => void,
): Promise<DiscoveredChannel | undefined> {
  let links: ReturnType<typeof topicLinks>;
  let finalUrl = advertisedTopic;
  // RT-2: GET on the topic carries Link rel=self and rel=hub (HEAD must too; one request suffices).
  try {
    const page = await fetcher.fetch(advertisedTopic, { maxBytes: 4 * 1024 * 1024 });
    finalUrl = page.url;
    if (page.redirects.length > 0) note(advertisedTopic, `topic redirected to ${page.url}`);
    if (page.status !== 200) note(page.url, `GET topic: HTTP ${page.status}`);
    else {
      links = topicLinks(page);
      if (!links) note(page.url, 'GET topic: no Link rel="self"/"hub"');
    }
  } catch (err) {
    note(advertisedTopic, `GET topic failed: ${(err as Error).message}`);
  }
  const self = links ? firstLinkWithRel(links.links, 'self') : undefined;
  const linkHubs = links ? linksWithRel(links.links, 'hub') : [];
  const hubs = linkHubs.length > 0 ? linkHubs : [...advertisedHubs];
  const hub = chooseHub(hubs);
  if (!hub) {
    note(advertisedTopic, 'no hub advertised for the channel: polling mode');
    return undefined;
  }
  const topic = self ?? (links ? finalUrl : advertisedTopic);
  const via = linkHubs.length > 0 || self ? links!.via : 'capability-list';
  note(
    advertisedTopic,
    `WebSub: hub.topic ${topic}${self && self !== advertisedTopic ? ' (rel="self" differs from the advertised topic)' : ''}, hub ${hub} (from ${via})`,
  );
  return { advertisedTopic, advertisedHubs, topic, hub, hubs, via };
}
