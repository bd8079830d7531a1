// The hub client (WS-4, WS-6, RT-8, RT-14): one form-encoded POST per (un)subscription request,
// 307/308 re-POSTed with the same body to Location, the outcome returned as a value.
import { randomBytes } from 'node:crypto';
import { request, type Dispatcher } from 'undici';
import { checkOutboundUrl, WEBSUB, type OutboundPolicy } from '@rsnotify/shared';

export interface HubRequest {
  readonly hub: string;
  readonly mode: 'subscribe' | 'unsubscribe';
  readonly topic: string;
  readonly callback: string;
  readonly leaseSeconds?: number;
  readonly secret?: string;
}

export type HubOutcome =
  /** 202 (RT-9): accepted, verification follows asynchronously. */
  | { readonly kind: 'accepted'; readonly status: number; readonly hub: string }
  /** 4xx: the hub refused the request; `body` is its text explanation (WS-6, WH-4). */
  | {
      readonly kind: 'rejected';
      readonly status: number;
      readonly body: string;
      readonly hub: string;
    }
  /** 5xx, network error, too many redirects: try again later. */
  | {
      readonly kind: 'failed';
      readonly status?: number;
      readonly body?: string;
      readonly error?: string;
      readonly hub: string;
    };

const MAX_REDIRECTS = 5;
const MAX_ERROR_BODY = 2_000;

/** WS-5: an unguessable capability token for the callback path (192 bits). */
export function newCallbackToken(): string {
  return randomBytes(24).toString('base64url');
}

/** WS-4: cryptographically random, unique, well under 200 bytes (WH-8). */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function encodeHubRequest(req: HubRequest): string {
  const form = new URLSearchParams();
  form.set(WEBSUB.callback, req.callback);
  form.set(WEBSUB.mode, req.mode);
  form.set(WEBSUB.topic, req.topic);
  if (req.mode === 'subscribe' && req.leaseSeconds !== undefined)
    form.set(WEBSUB.leaseSeconds, String(req.leaseSeconds));
  if (req.mode === 'subscribe' && req.secret !== undefined) form.set(WEBSUB.secret, req.secret);
  return form.toString();
}

/** Classifies a hub response (pure). */
export function classifyHubResponse(status: number, body: string, hub: string): HubOutcome {
  if (status >= 200 && status < 300) return { kind: 'accepted', status, hub };
  if (status >= 400 && status < 500 && status !== 408 && status !== 429)
    return { kind: 'rejected', status, body, hub };
  return { kind: 'failed', status, body, hub };
}

export async function sendHubRequest(
  req: HubRequest,
  dispatcher: Dispatcher,
  policy: OutboundPolicy,
  timeoutMs = 15_000,
): Promise<HubOutcome> {
  const body = encodeHubRequest(req);
  let url = req.hub;
  for (let hop = 0; ; hop++) {
    try {
      checkOutboundUrl(url, policy);
      const res = await request(url, {
        method: 'POST',
        dispatcher,
        body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        headers: {
          'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
          'user-agent': 'rsnotify-subscriber',
        },
      });
      const location = res.headers.location;
      if ((res.statusCode === 307 || res.statusCode === 308) && typeof location === 'string') {
        await res.body.dump();
        if (hop >= MAX_REDIRECTS)
          return { kind: 'failed', status: res.statusCode, error: 'too many redirects', hub: url };
        // WS-6: re-POST the same body to Location.
        url = new URL(location, url).href;
        continue;
      }
      const text = await readText(res.body, MAX_ERROR_BODY);
      return classifyHubResponse(res.statusCode, text, url);
    } catch (err) {
      return { kind: 'failed', error: (err as Error).message, hub: url };
    }
  }
}

async function readText(body: Dispatcher.ResponseData['body'], max: number): Promise<string> {
  let out = '';
  for await (const chunk of body) {
    if (out.length < max) out += (chunk as Buffer).toString('utf8');
  }
  return out.slice(0, max);
}
