// HTTP routing for the Source: which document or resource a request gets, with which headers.
// No sockets here: `respond` maps (method, target, headers) to a response over a read model, so the
// server shell stays a few lines and the routing is testable on its own.
import { formatLinkHeader, type DateTime } from '@rsnotify/shared';
import type { SourceUrls } from './documents.js';
import { canonicalTarget } from './names.js';
import type { RequestKind } from './faults.js';
import type { HubTarget } from './publisher.js';

export interface ServedResource {
  readonly bytes: Buffer;
  readonly etag: string;
  /** Built once per version (resourceHeaders): the hot path of a baseline sync copies nothing. */
  readonly headers: Readonly<Record<string, string>>;
}

/** The response headers of one resource version. */
export function resourceHeaders(
  urls: SourceUrls,
  bytes: Buffer,
  etag: string,
  contentType: string,
  lastModifiedMs: number,
): Record<string, string> {
  return {
    'content-type': contentType,
    'content-length': String(bytes.length),
    etag,
    'last-modified': new Date(lastModifiedMs).toUTCString(),
    'cache-control': 'no-cache',
    // RC-8: a Link header on a representation of any media type.
    link: formatLinkHeader([{ href: urls.capabilityListUrl, rel: 'resourcesync' }]),
  };
}

export interface ServedDocument {
  readonly body: Buffer;
  /** Validators for conditional GET (RFC 9110 13.1): a strong ETag and the last change. */
  readonly etag?: string;
  readonly lastModifiedMs?: number;
  /** Set while the Change Lists lag behind (fault): the instant they are complete up to. */
  readonly completeUpTo?: DateTime;
}

/** What the site serves; implemented by the simulator over its state and document caches. */
export interface SiteModel {
  readonly urls: SourceUrls;
  hub(): HubTarget | undefined;
  sourceDescription(): Buffer;
  capabilityList(): Buffer;
  /** The Resource List, or a Resource List Index once the set is larger than a page. */
  resourceList(): Buffer;
  resourceListPart(snapshotId: number, page: number): Buffer | undefined;
  changeListIndex(): ServedDocument;
  changeList(id: number): ServedDocument | undefined;
  /** The most recent notification, or undefined to serve an empty topic (RT-3). */
  topicBody(): Buffer | undefined;
  resource(target: string): ServedResource | undefined;
}

export interface SiteResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body?: Buffer;
}

/** Which fault scope a path falls in (`/_sim/` control paths are never faulted: undefined). */
export function requestKind(path: string): RequestKind | undefined {
  if (path.startsWith('/_sim/')) return undefined;
  return path.startsWith('/resources/') ? 'resource' : 'document';
}

const XML = 'application/xml';

function xml(body: Buffer, extra: Record<string, string> = {}): SiteResponse {
  return {
    status: 200,
    headers: {
      'content-type': XML,
      'content-length': String(body.length),
      'cache-control': 'no-cache',
      ...extra,
    },
    body,
  };
}

function text(
  status: number,
  body: string,
  type = 'text/plain; charset=utf-8',
  extra: Record<string, string> = {},
): SiteResponse {
  const buf = Buffer.from(body, 'utf8');
  return {
    status,
    headers: { 'content-type': type, 'content-length': String(buf.length), ...extra },
    body: buf,
  };
}

type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** RFC 9110 13.1.1-13.1.3: If-None-Match decides when sent; If-Modified-Since only without it. */
export function notModified(doc: ServedDocument, h: RequestHeaders): boolean {
  const inm = h['if-none-match'];
  if (typeof inm === 'string' && doc.etag !== undefined)
    return inm.split(',').some((t) => t.trim() === doc.etag || t.trim() === '*');
  const ims = h['if-modified-since'];
  if (typeof ims !== 'string' || doc.lastModifiedMs === undefined) return false;
  const since = Date.parse(ims);
  return Number.isFinite(since) && Math.floor(doc.lastModifiedMs / 1000) * 1000 <= since;
}

/**
 * A lagging Change List must not let a Destination conclude it is complete up to "now": its `Date`
 * says when its content was current (the subscriber's catch-up trusts an open list only up to the
 * Source's clock at fetch time). Conditional GETs are answered 304 when the list has not changed.
 */
function changeListResponse(doc: ServedDocument, h: RequestHeaders): SiteResponse {
  const extra: Record<string, string> = {
    ...(doc.completeUpTo ? { date: new Date(doc.completeUpTo.epochMs).toUTCString() } : {}),
    ...(doc.etag !== undefined ? { etag: doc.etag } : {}),
    ...(doc.lastModifiedMs !== undefined
      ? { 'last-modified': new Date(doc.lastModifiedMs).toUTCString() }
      : {}),
  };
  if (notModified(doc, h))
    return { status: 304, headers: { 'cache-control': 'no-cache', ...extra } };
  return xml(doc.body, extra);
}

function homePage(model: SiteModel): string {
  const u = model.urls;
  // RC-8: an HTML <link rel="resourcesync"> in <head> points to the Capability List.
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>rsnotify Source simulator</title>
<link rel="resourcesync" href="${u.capabilityListUrl}">
</head><body><h1>rsnotify Source simulator</h1><ul>
<li><a href="${u.wellKnownUrl}">Source Description</a></li>
<li><a href="${u.capabilityListUrl}">Capability List</a></li>
<li><a href="${u.resourceListUrl}">Resource List</a></li>
<li><a href="${u.changeListIndexUrl}">Change List Index</a></li>
<li><a href="${u.topicUrl}">Change notification topic</a></li>
</ul></body></html>
`;
}

/** Routes one GET/HEAD. `target` is the raw request target (path and query, as sent). */
export function respond(
  model: SiteModel,
  method: string,
  target: string,
  requestHeaders: Readonly<Record<string, string | string[] | undefined>>,
): SiteResponse {
  if (method !== 'GET' && method !== 'HEAD')
    return text(405, 'method not allowed\n', undefined, { allow: 'GET, HEAD' });
  if (target.startsWith('/resources/')) {
    // Fast path: a client that sends our `loc` as written hits the canonical key directly.
    const path = canonicalTarget(target);
    const r = model.resource(target) ?? (path === undefined ? undefined : model.resource(path));
    if (!r)
      return path === undefined
        ? text(400, 'malformed percent-encoding\n')
        : text(404, 'no such resource\n');
    const inm = requestHeaders['if-none-match'];
    if (typeof inm === 'string' && inm.split(',').some((t) => t.trim() === r.etag)) {
      const { 'content-length': _cl, ...rest } = r.headers;
      return { status: 304, headers: rest };
    }
    return { status: 200, headers: r.headers as Record<string, string>, body: r.bytes };
  }
  const path = canonicalTarget(target);
  if (path === undefined) return text(400, 'malformed percent-encoding\n');
  const resourcesyncLink = formatLinkHeader([
    { href: model.urls.capabilityListUrl, rel: 'resourcesync' },
  ]);
  const bare = path.split('?')[0]!;
  switch (bare) {
    case '/':
    case '/index.html':
      return text(200, homePage(model), 'text/html; charset=utf-8', { link: resourcesyncLink });
    case '/robots.txt':
      // RC-9: a Sitemap: directive pointing at the Resource List.
      return text(200, `User-agent: *\nAllow: /\nSitemap: ${model.urls.resourceListUrl}\n`);
    case '/.well-known/resourcesync':
      return xml(model.sourceDescription());
    case '/capabilitylist.xml':
      return xml(model.capabilityList());
    case '/resourcelist.xml':
      return xml(model.resourceList());
    case '/changelist.xml':
      return changeListResponse(model.changeListIndex(), requestHeaders);
    case '/notifications': {
      // RT-2, RT-3: 200, application/xml, Link self + hub; the latest payload or Content-Length: 0.
      const hub = model.hub();
      const link = formatLinkHeader(
        hub
          ? [
              { href: model.urls.topicUrl, rel: 'self' },
              { href: hub.url, rel: 'hub' },
            ]
          : [{ href: model.urls.topicUrl, rel: 'self' }],
      );
      const body = model.topicBody() ?? Buffer.alloc(0);
      return {
        status: 200,
        headers: {
          'content-type': XML,
          'content-length': String(body.length),
          link,
          'cache-control': 'no-cache',
        },
        body,
      };
    }
    default:
      break;
  }
  let m = /^\/resourcelist\/(\d+)\/(\d+)\.xml$/.exec(bare);
  if (m) {
    const part = model.resourceListPart(Number(m[1]), Number(m[2]));
    return part
      ? xml(part)
      : text(404, 'no such Resource List (the snapshot may have expired; fetch the index again)\n');
  }
  m = /^\/changelist\/(\d+)\.xml$/.exec(bare);
  if (m) {
    const list = model.changeList(Number(m[1]));
    return list
      ? changeListResponse(list, requestHeaders)
      : text(404, 'no such Change List (past retention?)\n');
  }
  return text(404, 'not found\n');
}
