// Validation of form-encoded requests at the hub URL (WH-1..WH-8, WH-21, RT-8). Pure: parameters
// in, a request or the refusal and its reason out. Nothing here reads the clock or the network.
import { MAX_SECRET_BYTES, WEBSUB, checkHttpUrl, normaliseTopicUrl } from '@rsnotify/shared';
import type { Refusal } from '../errors/index.js';

// checkHttpUrl moved to @rsnotify/shared (tenants and publishing use it too); re-exported here.
export { checkHttpUrl };

export interface SubscriptionRequest {
  readonly mode: 'subscribe' | 'unsubscribe';
  /** WH-6 normalised: the channel key and the address deliveries go to. */
  readonly callback: string;
  /** hub.topic exactly as given (WH-11 echoes it). */
  readonly topicAsGiven: string;
  /** WH-6 normalised topic: the channel key. */
  readonly topic: string;
  readonly secret: string | undefined;
  /** Requested lease; undefined when absent or not a positive integer (the default applies, WH-13). */
  readonly leaseSeconds: number | undefined;
}

export interface PublishRequest {
  readonly mode: 'publish';
  /** WH-21: hub.url and hub.topic values, normalised, in order, without duplicates. */
  readonly topics: readonly string[];
}

export type HubFormRequest = SubscriptionRequest | PublishRequest;

export type Validation<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly refusal: Refusal & 'malformed'; readonly reason: string };

const fail = (reason: string): { ok: false; refusal: 'malformed'; reason: string } => ({
  ok: false,
  refusal: 'malformed',
  reason,
});

function single(params: URLSearchParams, name: string): Validation<string | undefined> {
  const all = params.getAll(name);
  if (all.length > 1) return fail(`${name} given more than once`);
  return { ok: true, value: all[0] };
}

/** WH-1..WH-8: reads a subscribe, unsubscribe or publish request; unknown parameters are ignored (WH-2). */
export function parseHubForm(params: URLSearchParams): Validation<HubFormRequest> {
  const mode = single(params, WEBSUB.mode);
  if (!mode.ok) return mode;
  if (mode.value === undefined || mode.value === '') return fail('hub.mode is missing');
  if (mode.value === 'publish') return parsePublish(params);
  if (mode.value !== 'subscribe' && mode.value !== 'unsubscribe') {
    return fail(
      `hub.mode must be subscribe, unsubscribe or publish, not ${JSON.stringify(mode.value.slice(0, 40))}`,
    );
  }
  const callback = single(params, WEBSUB.callback);
  if (!callback.ok) return callback;
  if (!callback.value) return fail('hub.callback is missing');
  const topic = single(params, WEBSUB.topic);
  if (!topic.ok) return topic;
  if (!topic.value) return fail('hub.topic is missing');
  const callbackUrl = normaliseTopicUrl(callback.value);
  const topicUrl = normaliseTopicUrl(topic.value);
  const badCallback = checkHttpUrl(callbackUrl, 'hub.callback');
  if (badCallback) return fail(badCallback);
  const badTopic = checkHttpUrl(topicUrl, 'hub.topic');
  if (badTopic) return fail(badTopic);

  let secret: string | undefined;
  let leaseSeconds: number | undefined;
  if (mode.value === 'subscribe') {
    const s = single(params, WEBSUB.secret);
    if (!s.ok) return s;
    // WH-8: under 200 bytes, counted in UTF-8.
    if (s.value !== undefined && Buffer.byteLength(s.value, 'utf8') > MAX_SECRET_BYTES) {
      return fail(`hub.secret must be shorter than 200 bytes (WH-8)`);
    }
    secret = s.value === '' ? undefined : s.value;
    const l = single(params, WEBSUB.leaseSeconds);
    if (!l.ok) return l;
    if (l.value !== undefined && /^\d{1,12}$/.test(l.value.trim()) && Number(l.value) > 0)
      leaseSeconds = Number(l.value);
  }
  // WH-10: an unsubscription's hub.lease_seconds and hub.secret are ignored.
  return {
    ok: true,
    value: {
      mode: mode.value,
      callback: callbackUrl,
      topic: topicUrl,
      topicAsGiven: topic.value,
      secret,
      leaseSeconds,
    },
  };
}

function parsePublish(params: URLSearchParams): Validation<PublishRequest> {
  const values = [...params.getAll(WEBSUB.url), ...params.getAll(WEBSUB.topic)];
  if (values.length === 0) return fail('hub.mode=publish needs hub.url or hub.topic');
  if (values.length > 100) return fail('too many topics in one publish request (at most 100)');
  const topics: string[] = [];
  for (const v of values) {
    const t = normaliseTopicUrl(v);
    const bad = checkHttpUrl(t, 'hub.url');
    if (bad) return fail(bad);
    if (!topics.includes(t)) topics.push(t);
  }
  return { ok: true, value: { mode: 'publish', topics } };
}
