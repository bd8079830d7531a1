// Turns the bridge's segments into change notifications as a Source would publish them (RN-1..RN-11):
// one document per interval, `up` to the Source's Capability List (RN-6), the entries as the Change
// List had them, and the Link header a relayed notification carries (RT-4: self = topic, hub = us).
import {
  formatLinkHeader,
  normaliseTopicUrl,
  RS_NS,
  serializeDocument,
  SITEMAP_NS,
  type ResourceSyncDocument,
} from '@rsnotify/shared';
import type { NewNotification } from '../store/index.js';
import { splitSegment, type Segment } from './coverage.js';

export interface NotificationTarget {
  readonly topicUrl: string;
  readonly hubUrl: string;
  readonly capabilityListUrl: string | undefined;
  readonly receivedAt: number;
  readonly maxEntries: number;
  readonly maxBytes: number;
}

function document(
  segment: Segment,
  capabilityListUrl: string | undefined,
): ResourceSyncDocument<'change-notification'> {
  return {
    kind: 'change-notification',
    root: 'urlset',
    capability: 'change-notification',
    md: { capability: 'change-notification', from: segment.from, until: segment.until },
    links: capabilityListUrl ? [{ rel: 'up', href: capabilityListUrl }] : [],
    entries: segment.entries,
    namespaces: { xmlns: SITEMAP_NS, 'xmlns:rs': RS_NS },
  };
}

/** Bodies for the segments in order, each within `maxEntries` and (where splittable) `maxBytes`. */
export function buildNotifications(
  segments: readonly Segment[],
  t: NotificationTarget,
): NewNotification[] {
  const linkHeader = formatLinkHeader([
    { href: t.topicUrl, rel: 'self' },
    { href: t.hubUrl, rel: 'hub' },
  ]);
  const out: NewNotification[] = [];
  // Stored under the WH-6 key subscriptions use; the Link header keeps the URL as the hub gives it.
  const topicKey = normaliseTopicUrl(t.topicUrl);
  const emit = (segment: Segment, maxEntries: number): void => {
    const parts = splitSegment(segment, maxEntries);
    for (const part of parts) {
      const body = Buffer.from(serializeDocument(document(part, t.capabilityListUrl)), 'utf8');
      // Halve while a cut is possible (a part without timed entries cannot be cut, RN-13).
      if (
        body.length > t.maxBytes &&
        part.entries.length > 1 &&
        (parts.length > 1 || maxEntries >= part.entries.length)
      ) {
        emit(part, Math.max(1, Math.floor(part.entries.length / 2)));
        continue;
      }
      out.push({
        topicUrl: topicKey,
        receivedAt: t.receivedAt,
        contentType: 'application/xml',
        linkHeader,
        body,
      });
    }
  };
  for (const s of segments) emit(s, t.maxEntries);
  return out;
}
