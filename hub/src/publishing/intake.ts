// Checks of a ResourceSync publish request before its body is looked at (RT-4, RT-7, M-1, M-4). Pure.
import { linksWithRel, parseLinkHeader, normaliseTopicUrl } from '@rsnotify/shared';
import { checkHttpUrl } from '@rsnotify/shared';
import { RecentAnswers } from '@rsnotify/service-kit';
import type { Refusal } from '../errors/index.js';
import type { SourceRecord } from '../store/index.js';
import { authorizePublish, bearerToken, tokenMatches } from '../tenants/index.js';

export type IntakeCheck<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly refusal: Refusal & 'malformed'; readonly reason: string };

const XML_TYPE = /^(application\/xml|text\/xml|application\/[a-z0-9.+-]+\+xml)\s*(;|$)/i;

export function isXmlContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && XML_TYPE.test(contentType.trim());
}

export function isFormContentType(contentType: string | undefined): boolean {
  return (
    contentType !== undefined &&
    /^application\/x-www-form-urlencoded\s*(;|$)/i.test(contentType.trim())
  );
}

export interface IntakeLinks {
  /** rel=self exactly as sent. */
  readonly topicAsSent: string;
  /** WH-6 normalised: the channel key. */
  readonly topic: string;
  readonly hubs: readonly string[];
}

// A Source sends the same Link header with every publish to a topic: its reading (a pure function
// of the text) is remembered, bounded, instead of parsed and normalised again per publish.
const recentLinks = new RecentAnswers(readLinks);

/** RT-4, M-4: exactly one rel=self (an http(s) URL) and at least one rel=hub. */
export function readIntakeLinks(linkHeader: string | undefined): IntakeCheck<IntakeLinks> {
  if (!linkHeader)
    return {
      ok: false,
      refusal: 'malformed',
      reason: 'missing Link header with rel="self" and rel="hub" (RT-4)',
    };
  return recentLinks.get(linkHeader);
}

function readLinks(linkHeader: string): IntakeCheck<IntakeLinks> {
  const links = parseLinkHeader(linkHeader);
  const selfs = linksWithRel(links, 'self');
  const hubs = linksWithRel(links, 'hub');
  if (selfs.length === 0)
    return { ok: false, refusal: 'malformed', reason: 'Link header has no rel="self" (RT-4)' };
  if (selfs.length > 1)
    return {
      ok: false,
      refusal: 'malformed',
      reason: 'Link header has more than one rel="self" (WH-17)',
    };
  if (hubs.length === 0)
    return { ok: false, refusal: 'malformed', reason: 'Link header has no rel="hub" (RT-4)' };
  const topic = normaliseTopicUrl(selfs[0]!);
  const bad = checkHttpUrl(topic, 'rel="self"');
  if (bad) return { ok: false, refusal: 'malformed', reason: bad };
  return { ok: true, value: { topicAsSent: selfs[0]!, topic, hubs } };
}

/** A publish its headers admit: the body may be read, and is then checked and stored. */
export interface AdmittedPublish {
  readonly ok: true;
  /** WH-6 normalised: the channel key. */
  readonly topic: string;
  /** rel=self exactly as sent (for the RT-2 topic check). */
  readonly topicAsSent: string;
  /** The Source owning the topic (none only with open publishing). */
  readonly source: SourceRecord | undefined;
  readonly authenticated: boolean;
}

export type Admission =
  | AdmittedPublish
  | {
      readonly ok: false;
      readonly refusal: Refusal & ('malformed' | 'not-owner' | 'missing-token' | 'wrong-token');
      readonly reason: string;
      readonly code: 'links' | 'unauthorized';
      readonly topic?: string;
    };

/**
 * Everything about a publish that the headers decide (RT-4, RT-5, RT-7), taken before one byte of
 * the body is read: the Link header, the token and the Source owning the topic. `authenticated` is
 * false only with open publishing and no owner token, whose bodies count against the shared
 * unauthenticated byte budget.
 */
export function admitPublish(
  sources: readonly SourceRecord[],
  linkHeader: string | undefined,
  authorization: string | undefined,
  openPublishing: boolean,
): Admission {
  const links = readIntakeLinks(linkHeader);
  if (!links.ok)
    return {
      ok: false,
      refusal: links.refusal,
      reason: links.reason,
      code: 'links',
    };
  const topic = links.value.topic;
  const token = bearerToken(authorization);
  const auth = authorizePublish(sources, topic, token, openPublishing);
  if (!auth.ok)
    return { ok: false, refusal: auth.refusal, reason: auth.reason, code: 'unauthorized', topic };
  const owner = auth.source;
  const authenticated =
    !openPublishing ||
    (owner !== undefined && token !== undefined && tokenMatches(token, owner.tokenHash));
  return { ok: true, topic, topicAsSent: links.value.topicAsSent, source: owner, authenticated };
}
