// Streams the entries of a Resource List or a Resource List Index (RC-14..RC-16) and the snapshot
// time `at`, without holding the lists in memory. Shared by the baseline and the audit.
import {
  RsnotifyError,
  streamDocument,
  type DateTime,
  type Entry,
  type ErrorDetails,
} from '@rsnotify/shared';
import type { HttpGetter } from '../mirror/index.js';
import type { SubscriberCodesOf } from '../errors/index.js';

/**
 * RSN_BASELINE_HTTP_STATUS: a list answered with another status than 200.
 * RSN_BASELINE_NOT_RESOURCELIST: the URL is not a Resource List (Index).
 * RSN_BASELINE_NO_AT: the list has no `at` (RC-14 MUST), so no position can be taken from it.
 */
export class BaselineError extends RsnotifyError<SubscriberCodesOf<'BaselineError'>> {
  constructor(code: SubscriberCodesOf<'BaselineError'>, message: string, details: ErrorDetails) {
    super(code, message, { details });
    this.name = 'BaselineError';
  }
}

export type ResourceListEvent =
  | { readonly type: 'at'; readonly at: DateTime }
  | { readonly type: 'entry'; readonly entry: Entry };

const MAX_INDEX_DEPTH = 3;

/**
 * Yields `at` of the top document first, then every resource entry of the list, or of every list of
 * the index in order. An index's `at` is the snapshot time of the whole set (RC-16).
 */
export async function* readResourceList(
  http: HttpGetter,
  url: string,
  depth = 0,
): AsyncGenerator<ResourceListEvent> {
  const res = await http.stream(url, { timeoutMs: 300_000 });
  if (res.status !== 200) {
    await res.dump();
    throw new BaselineError('RSN_BASELINE_HTTP_STATUS', `GET ${url}: HTTP ${res.status}`, {
      url,
      status: res.status,
    });
  }
  const children: string[] = [];
  let isIndex = false;
  try {
    for await (const ev of streamDocument(res.body, { baseUrl: res.url })) {
      if (ev.type === 'header') {
        const h = ev.header;
        if (
          h.kind !== 'resource-list' &&
          h.kind !== 'resource-list-index' &&
          h.capability !== 'resourcelist'
        ) {
          throw new BaselineError(
            'RSN_BASELINE_NOT_RESOURCELIST',
            `${url} is a ${h.kind}, not a Resource List`,
            { url, kind: h.kind },
          );
        }
        isIndex = h.root === 'sitemapindex';
        if (depth === 0) {
          if (h.md.at === undefined)
            throw new BaselineError('RSN_BASELINE_NO_AT', `${url} has no rs:md/@at`, { url });
          yield { type: 'at', at: h.md.at };
        }
        continue;
      }
      if (isIndex) children.push(ev.entry.loc);
      else yield { type: 'entry', entry: ev.entry };
    }
  } finally {
    await res.dump();
  }
  if (isIndex) {
    if (depth >= MAX_INDEX_DEPTH)
      throw new BaselineError(
        'RSN_BASELINE_NOT_RESOURCELIST',
        `Resource List Indexes nested too deep at ${url}`,
        { url },
      );
    for (const child of children) yield* readResourceList(http, child, depth + 1);
  }
}
