// Asks a hub whether it bridges a Source (polls its Change Lists and publishes them on a topic of its
// own): GET {hub}/bridge?source=URL answers 200 {name, hub, topic} or 404. Tried with each URL of the
// Source discovery knows, since the hub's operator may have registered any of them.
import type { GetLike } from '@rsnotify/shared';

export interface BridgedChannel {
  readonly name: string;
  readonly hub: string;
  readonly topic: string;
  /** The Source URL the hub recognised. */
  readonly matched: string;
}

export function bridgeLookupUrl(hub: string, sourceUrl: string): string {
  return `${hub.replace(/\/+$/, '')}/bridge?source=${encodeURIComponent(sourceUrl)}`;
}

export async function lookupBridgedChannel(
  http: GetLike,
  hub: string,
  sourceUrls: readonly (string | undefined)[],
): Promise<BridgedChannel | undefined> {
  for (const url of new Set(sourceUrls.filter((u): u is string => u !== undefined))) {
    const res = await http.get(bridgeLookupUrl(hub, url), {
      maxBytes: 64 * 1024,
      timeoutMs: 10_000,
    });
    if (res.status === 404) continue;
    if (res.status !== 200)
      throw new Error(`hub lookup ${bridgeLookupUrl(hub, url)}: HTTP ${res.status}`);
    const body = JSON.parse(res.body.toString('utf8')) as {
      name?: unknown;
      hub?: unknown;
      topic?: unknown;
    };
    if (typeof body.topic !== 'string' || typeof body.hub !== 'string')
      throw new Error(`hub lookup for ${url}: answer without hub and topic`);
    return {
      name: typeof body.name === 'string' ? body.name : '',
      hub: body.hub,
      topic: body.topic,
      matched: url,
    };
  }
  return undefined;
}
