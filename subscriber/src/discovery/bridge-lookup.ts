// Asks a hub whether it bridges a Source (polls its Change Lists and publishes them on a topic of its
// own): GET {hub}/bridge?source=URL answers 200 {name, hub, topic} or 404. Tried with each URL of the
// Source discovery knows, since the hub's operator may have registered any of them.
import type { GetLike } from '@rsnotify/shared';
import { SubscriberError } from '../errors/index.js';

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
      throw new SubscriberError(
        'RSN_BRIDGE_LOOKUP_FAILED',
        `hub lookup ${bridgeLookupUrl(hub, url)}: HTTP ${res.status}`,
      );
    const body = jsonObject(res.body);
    if (typeof body?.topic !== 'string' || typeof body.hub !== 'string')
      throw new SubscriberError(
        'RSN_BRIDGE_LOOKUP_FAILED',
        `hub lookup for ${url}: answer without hub and topic`,
      );
    return {
      name: typeof body.name === 'string' ? body.name : '',
      hub: body.hub,
      topic: body.topic,
      matched: url,
    };
  }
  return undefined;
}

/** The answer's JSON object, or undefined when the body is not one (a broken or hostile hub). */
function jsonObject(body: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
