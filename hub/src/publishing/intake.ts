// Checks of a ResourceSync publish request before its body is looked at (RT-4, RT-7, M-1, M-4). Pure.
import { linksWithRel, parseLinkHeader, normaliseTopicUrl } from '@rsnotify/shared';
import { checkHttpUrl } from '@rsnotify/shared';

export type IntakeCheck<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly status: 400 | 415; readonly reason: string };

const XML_TYPE = /^(application\/xml|text\/xml|application\/[a-z0-9.+-]+\+xml)\s*(;|$)/i;

export function isXmlContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && XML_TYPE.test(contentType.trim());
}

export function isFormContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/x-www-form-urlencoded\s*(;|$)/i.test(contentType.trim());
}

export interface IntakeLinks {
  /** rel=self exactly as sent. */
  readonly topicAsSent: string;
  /** WH-6 normalised: the channel key. */
  readonly topic: string;
  readonly hubs: readonly string[];
}

/** RT-4, M-4: exactly one rel=self (an http(s) URL) and at least one rel=hub. */
export function readIntakeLinks(linkHeader: string | undefined): IntakeCheck<IntakeLinks> {
  if (!linkHeader) return { ok: false, status: 400, reason: 'missing Link header with rel="self" and rel="hub" (RT-4)' };
  const links = parseLinkHeader(linkHeader);
  const selfs = linksWithRel(links, 'self');
  const hubs = linksWithRel(links, 'hub');
  if (selfs.length === 0) return { ok: false, status: 400, reason: 'Link header has no rel="self" (RT-4)' };
  if (selfs.length > 1) return { ok: false, status: 400, reason: 'Link header has more than one rel="self" (WH-17)' };
  if (hubs.length === 0) return { ok: false, status: 400, reason: 'Link header has no rel="hub" (RT-4)' };
  const topic = normaliseTopicUrl(selfs[0]!);
  const bad = checkHttpUrl(topic, 'rel="self"');
  if (bad) return { ok: false, status: 400, reason: bad };
  return { ok: true, value: { topicAsSent: selfs[0]!, topic, hubs } };
}
