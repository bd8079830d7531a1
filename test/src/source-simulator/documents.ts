// Every ResourceSync document the Source serves or posts, built as the shared model
// (documents/model.ts) and written with shared's serializeDocument: one rendering of a change for
// the Change Lists and the notifications alike, so the two can never disagree.
import {
  RS_NS,
  SITEMAP_NS,
  serializeDocument,
  type DateTime,
  type DocumentKind,
  type Entry,
  type LinkElement,
  type Metadata,
  type ResourceSyncDocument,
  type RootElement,
} from '@rsnotify/shared';
import type { Batch, ChangeListPart } from './changelists.js';
import type { ChangeRecord, ResourceVersion } from './state.js';

export interface SourceUrls {
  readonly baseUrl: string;
  readonly wellKnownUrl: string;
  readonly capabilityListUrl: string;
  readonly resourceListUrl: string;
  readonly changeListIndexUrl: string;
  readonly topicUrl: string;
  /** The HTML home page (RC-8 discovery, `describedby`). */
  readonly homeUrl: string;
}

export function sourceUrls(baseUrl: string): SourceUrls {
  return {
    baseUrl,
    wellKnownUrl: `${baseUrl}/.well-known/resourcesync`,
    capabilityListUrl: `${baseUrl}/capabilitylist.xml`,
    resourceListUrl: `${baseUrl}/resourcelist.xml`,
    changeListIndexUrl: `${baseUrl}/changelist.xml`,
    topicUrl: `${baseUrl}/notifications`,
    homeUrl: `${baseUrl}/`,
  };
}

export const resourceListPartUrl = (urls: SourceUrls, snapshotId: number, page: number): string =>
  `${urls.baseUrl}/resourcelist/${snapshotId}/${page}.xml`;
export const changeListUrl = (urls: SourceUrls, id: number): string =>
  `${urls.baseUrl}/changelist/${id}.xml`;

const NAMESPACES = { xmlns: SITEMAP_NS, 'xmlns:rs': RS_NS };

function doc<K extends DocumentKind>(
  kind: K,
  root: RootElement,
  md: Metadata,
  links: LinkElement[],
  entries: Entry[],
): ResourceSyncDocument<K> {
  return {
    kind,
    root,
    capability: md.capability ?? '',
    md,
    links,
    entries,
    namespaces: NAMESPACES,
  };
}

const up = (href: string): LinkElement => ({ rel: 'up', href });

export function sourceDescription(urls: SourceUrls): ResourceSyncDocument<'source-description'> {
  return doc(
    'source-description',
    'urlset',
    { capability: 'description' },
    [{ rel: 'describedby', href: urls.homeUrl }],
    [{ loc: urls.capabilityListUrl, md: { capability: 'capabilitylist' }, links: [] }],
  );
}

/** RC-11, RA-1: Resource List, Change List (Index) and, when a hub is known, the notification channel. */
export function capabilityList(
  urls: SourceUrls,
  hubUrl: string | undefined,
): ResourceSyncDocument<'capability-list'> {
  const entries: Entry[] = [
    { loc: urls.resourceListUrl, md: { capability: 'resourcelist' }, links: [] },
    { loc: urls.changeListIndexUrl, md: { capability: 'changelist' }, links: [] },
  ];
  if (hubUrl)
    entries.push({
      loc: urls.topicUrl,
      md: { capability: 'change-notification' },
      links: [{ rel: 'hub', href: hubUrl }],
    });
  return doc(
    'capability-list',
    'urlset',
    { capability: 'capabilitylist' },
    [up(urls.wellKnownUrl)],
    entries,
  );
}

function resourceEntry(v: ResourceVersion): Entry {
  return {
    loc: v.uri,
    lastmod: v.modified,
    md: { hash: v.hash, length: v.length, type: v.media.type },
    links: [],
  };
}

/** RC-14: one page (with `index` when part of an index) or the whole list. */
export function resourceList(
  urls: SourceUrls,
  versions: readonly ResourceVersion[],
  at: DateTime,
  indexUrl?: string,
): ResourceSyncDocument<'resource-list'> {
  const links = [up(urls.capabilityListUrl)];
  if (indexUrl) links.push({ rel: 'index', href: indexUrl });
  return doc(
    'resource-list',
    'urlset',
    { capability: 'resourcelist', at },
    links,
    versions.map(resourceEntry),
  );
}

/** RC-16. */
export function resourceListIndex(
  urls: SourceUrls,
  partUrls: readonly string[],
  at: DateTime,
): ResourceSyncDocument<'resource-list-index'> {
  return doc(
    'resource-list-index',
    'sitemapindex',
    { capability: 'resourcelist', at },
    [up(urls.capabilityListUrl)],
    partUrls.map((loc) => ({ loc, md: { capability: 'resourcelist', at }, links: [] })),
  );
}

/**
 * One change as an entry (RC-21, RN-7..RN-11). RS 1.1: `datetime` is the change time and `lastmod`
 * the resource's modification time (the same instant here; absent for deletes). RS 1.0 mode
 * (RC-25): `lastmod` is the change time, no `datetime`, and deletes carry no time at all.
 */
export function changeEntry(rec: ChangeRecord): Entry {
  const v = rec.version;
  if (!v && rec.timelessDelete) {
    // Quirk (as real Sources do): no change time at all, only the gone resource's old lastmod.
    return {
      loc: rec.uri,
      ...(rec.deletedModified ? { lastmod: rec.deletedModified } : {}),
      md: { change: rec.change },
      links: [],
    };
  }
  const md: Metadata = v
    ? {
        change: rec.change,
        ...(rec.legacy ? {} : { datetime: rec.time }),
        hash: v.hash,
        length: v.length,
        type: v.media.type,
      }
    : { change: rec.change, ...(rec.legacy ? {} : { datetime: rec.time }) };
  return v ? { loc: rec.uri, lastmod: v.modified, md, links: [] } : { loc: rec.uri, md, links: [] };
}

/** RC-24: lists in forward order, `until` on closed ones only; the index's `from` is the oldest kept. */
export function changeListIndex(
  urls: SourceUrls,
  lists: readonly ChangeListPart[],
  omitFrom = false,
): ResourceSyncDocument<'change-list-index'> {
  return doc(
    'change-list-index',
    'sitemapindex',
    listMd(lists[0]!.from, undefined, omitFrom),
    [up(urls.capabilityListUrl)],
    lists.map((l) => ({
      loc: changeListUrl(urls, l.id),
      md: listMd(l.from, l.until, omitFrom),
      links: [],
    })),
  );
}

/** A list's rs:md; `omitFrom` is the quirk of Sources that write no `from` (RC-21 bent). */
function listMd(from: DateTime, until: DateTime | undefined, omitFrom: boolean): Metadata {
  return { capability: 'changelist', ...(omitFrom ? {} : { from }), ...(until ? { until } : {}) };
}

/** RC-21, RC-22: an open list has no `until`. */
export function changeList(
  urls: SourceUrls,
  list: ChangeListPart,
  omitFrom = false,
): ResourceSyncDocument<'change-list'> {
  const md = listMd(list.from, list.until, omitFrom);
  return doc(
    'change-list',
    'urlset',
    md,
    [up(urls.capabilityListUrl), { rel: 'index', href: urls.changeListIndexUrl }],
    list.entries.map(changeEntry),
  );
}

/** RN-1..RN-11; `up` (RN-6) points at the Capability List. */
export function changeNotification(
  urls: SourceUrls,
  batch: Batch,
): ResourceSyncDocument<'change-notification'> {
  return doc(
    'change-notification',
    'urlset',
    { capability: 'change-notification', from: batch.from, until: batch.until },
    [up(urls.capabilityListUrl)],
    batch.changes.map(changeEntry),
  );
}

export function serialize(document: ResourceSyncDocument): Buffer {
  return Buffer.from(serializeDocument(document), 'utf8');
}
