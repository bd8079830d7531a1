// One poll's reading: the Change List Index (or a plain Change List) and every list that can hold
// something new, each with a conditional GET through the origin's queue. Returns plain data for
// coverage.ts to judge; the only decisions here are about HTTP answers and document kinds.
import {
  dateTimeFromMillis,
  parseDateTime,
  parseDocument,
  parseHttpDate,
  RsnotifyError,
  type DateTime,
  type Entry,
  type Metadata,
} from '@rsnotify/shared';
import type { HubCodesOf } from '../errors/index.js';
import type { BridgePosition } from '../store/index.js';
import { listsToRead, type FetchedList, type ListRef } from './coverage.js';
import {
  BridgeHttpError,
  headerValue,
  type GetResult,
  type SourceGetter,
  type Validators,
} from './http.js';

/** A bridged Source that cannot be configured or read; the codes and meanings are in HUB_ERRORS. */
export class BridgeError extends RsnotifyError<HubCodesOf<'BridgeError'>> {
  constructor(code: HubCodesOf<'BridgeError'>, message: string, details: Record<string, unknown>) {
    super(code, message, { details });
    this.name = 'BridgeError';
  }
}

export type ReadResult =
  | {
      readonly kind: 'read';
      /** With the index's new validators. */
      readonly position: BridgePosition;
      readonly refs: readonly ListRef[];
      readonly fetched: ReadonlyMap<string, FetchedList>;
      /** The Change List URL is a single list, not an index: it is read every poll. */
      readonly plainList: boolean;
    }
  | { readonly kind: 'gone'; readonly status: number };

function validatorsOf(res: GetResult): Validators {
  const etag = headerValue(res.headers, 'etag');
  const lastModified = headerValue(res.headers, 'last-modified');
  return { ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) };
}

function bounds(md: Metadata | undefined): { from?: DateTime; until?: DateTime } {
  return { ...(md?.from ? { from: md.from } : {}), ...(md?.until ? { until: md.until } : {}) };
}

/** A fresh list as coverage.ts reads it: md from/until, entries, HTTP Date, validators. */
function freshList(
  url: string,
  md: Metadata,
  entries: readonly Entry[],
  res: GetResult,
): FetchedList {
  const dateMs = parseHttpDate(headerValue(res.headers, 'date'));
  return {
    url,
    status: 'fresh',
    entries,
    ...bounds(md),
    ...validatorsOf(res),
    ...(dateMs !== undefined ? { date: dateTimeFromMillis(Math.floor(dateMs / 1000) * 1000) } : {}),
  };
}

function assertAnswer(res: GetResult, url: string, allowed: readonly number[]): void {
  if (res.status === 429 || res.status >= 500) {
    throw new BridgeHttpError(
      'RSN_BRIDGE_HTTP_STATUS',
      `GET ${url}: HTTP ${res.status}`,
      res.status,
      undefined,
      { url, status: res.status },
    );
  }
  if (!allowed.includes(res.status)) {
    throw new BridgeError('RSN_BRIDGE_NOT_CHANGELIST', `GET ${url}: HTTP ${res.status}`, {
      url,
      status: res.status,
    });
  }
}

const conditional = (v: { etag?: string; lastModified?: string } | undefined): Validators => ({
  ...(v?.etag ? { etag: v.etag } : {}),
  ...(v?.lastModified ? { lastModified: v.lastModified } : {}),
});

export async function readChangeLists(
  http: SourceGetter,
  start: BridgePosition,
  maxBytes: number,
): Promise<ReadResult> {
  let position = start;
  const indexUrl = position.changeListUrl!;
  const res = await http.fetch(
    indexUrl,
    conditional({ etag: position.indexEtag, lastModified: position.indexLastModified }),
  );
  const fetched = new Map<string, FetchedList>();
  let refs: ListRef[];
  let plainList = false;
  if (res.status === 304) {
    refs = position.lists.map((l) => ({
      url: l.url,
      ...(l.from ? { from: parseDateTime(l.from) } : {}),
      ...(l.until ? { until: parseDateTime(l.until) } : {}),
    }));
    plainList = refs.length === 1 && refs[0]!.url === indexUrl;
    if (plainList) fetched.set(indexUrl, { url: indexUrl, status: 'unchanged' });
  } else {
    assertAnswer(res, indexUrl, [200, 404, 410]);
    if (res.status !== 200) return { kind: 'gone', status: res.status };
    const doc = parseDocument(res.body.toString('utf8'), { baseUrl: res.url, maxBytes });
    const v = validatorsOf(res);
    position = { ...position, indexEtag: v.etag, indexLastModified: v.lastModified };
    if (
      doc.kind === 'change-list-index' ||
      (doc.root === 'sitemapindex' && doc.capability === 'changelist')
    ) {
      refs = doc.entries.map((e) => ({ url: e.loc, ...bounds(e.md) }));
    } else if (doc.kind === 'change-list' || doc.capability === 'changelist') {
      plainList = true;
      refs = [{ url: indexUrl, ...bounds(doc.md) }];
      fetched.set(indexUrl, freshList(indexUrl, doc.md, doc.entries, res));
    } else {
      throw new BridgeError(
        'RSN_BRIDGE_NOT_CHANGELIST',
        `${indexUrl} is a ${doc.kind}, not a Change List or Change List Index`,
        { url: indexUrl, kind: doc.kind },
      );
    }
  }
  if (!plainList) {
    const known = new Map(position.lists.map((l) => [l.url, l]));
    for (const ref of listsToRead(position, refs)) {
      const k = known.get(ref.url);
      const r = await http.fetch(ref.url, conditional(k));
      if (r.status === 304 && k) {
        fetched.set(ref.url, { url: ref.url, status: 'unchanged' });
        continue;
      }
      assertAnswer(r, ref.url, [200]);
      const list = parseDocument(r.body.toString('utf8'), { baseUrl: r.url, maxBytes });
      if (
        list.root !== 'urlset' ||
        (list.kind !== 'change-list' && list.capability !== 'changelist')
      ) {
        throw new BridgeError(
          'RSN_BRIDGE_NOT_CHANGELIST',
          `${ref.url} is a ${list.kind}, not a Change List`,
          { url: ref.url, kind: list.kind },
        );
      }
      fetched.set(ref.url, freshList(ref.url, list.md, list.entries, r));
    }
  }
  return { kind: 'read', position, refs, fetched, plainList };
}
