// Small views over parsed documents that hub and subscriber share.
import type { CapabilityList, Change, Entry, NotificationChannel } from './model.js';

/** Every change-notification channel of a Capability List (RA-1): topic = loc, hubs = rel="hub" hrefs. */
export function notificationChannels(doc: CapabilityList): NotificationChannel[] {
  const out: NotificationChannel[] = [];
  for (const entry of doc.entries) {
    if (entry.md?.capability !== 'change-notification') continue;
    out.push({
      topic: entry.loc,
      hubs: entry.links.filter((l) => l.rel === 'hub').map((l) => l.href),
    });
  }
  return out;
}

/**
 * The change an entry of a Change List / notification describes, or undefined without
 * rs:md/@change. The time is `datetime`, else `lastmod` (RS 1.0 used lastmod as the change time, RC-25)
 * except for a delete, whose `lastmod` is the gone resource's and says nothing about when (RC-23).
 */
export function entryToChange(entry: Entry): Change | undefined {
  const md = entry.md;
  if (md?.change === undefined) return undefined;
  const change: { -readonly [K in keyof Change]: Change[K] } = {
    uri: entry.loc,
    change: md.change,
  };
  const time = md.datetime ?? (md.change === 'deleted' ? undefined : entry.lastmod);
  if (time) change.time = time;
  if (entry.lastmod) change.lastmod = entry.lastmod;
  if (md.hash) change.hash = md.hash;
  if (md.length !== undefined) change.length = md.length;
  if (md.type !== undefined) change.type = md.type;
  return change;
}
