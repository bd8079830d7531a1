// Whether a delivery POST is taken (WebSub §7; WS-11, WS-12, WS-14..WS-16), as plain functions:
// by the state of the subscription its callback names, then by its signature. The intake maps the
// decisions to HTTP answers and stores what is accepted.
import { verifySignature, verifySignatureInSlices, type SignatureCheck } from '@rsnotify/shared';
import type { SubscriptionRecord } from '../store/index.js';

export type DeliveryAcceptance =
  { readonly kind: 'accept' } | { readonly kind: 'gone' } | { readonly kind: 'unknown' };

export function decideDelivery(rec: SubscriptionRecord | undefined): DeliveryAcceptance {
  if (!rec) return { kind: 'unknown' };
  // WS-12: 410 tells the hub to drop a subscription we no longer want.
  if (rec.state === 'unsubscribed' || rec.state === 'denied' || rec.state === 'abandoned')
    return { kind: 'gone' };
  // pending-subscribe: the hub may deliver right after verifying, before we see our own commit;
  // expired: the hub's clock may be behind ours. Both still carry real notifications.
  return { kind: 'accept' };
}

export type SignatureDecision =
  /** Store and process it; `signature` is what the inbox row records. */
  | { readonly kind: 'accept'; readonly signature: 'ok' | 'unsigned' }
  /** WS-16: unsigned on a subscription made with a secret: a non-2xx that is not 410 (403). */
  | { readonly kind: 'refuse-unsigned' }
  /** WS-15: a signature that does not verify: ignored locally, answered 2xx. */
  | {
      readonly kind: 'ignore';
      readonly reason: 'malformed' | 'unsupported-method' | 'mismatch';
    };

/**
 * WS-14..WS-16: with a secret the X-Hub-Signature must verify over the raw body (any of the four
 * methods); without one the delivery is taken unsigned.
 */
export function decideSignature(
  secret: string | undefined,
  header: string | undefined,
  body: Uint8Array,
): SignatureDecision {
  if (!secret) return UNSIGNED;
  return signatureDecision(verifySignature(header, secret, body));
}

/** decideSignature for a large body: the HMAC yields to the event loop every megabyte. */
export async function decideSignatureInSlices(
  secret: string | undefined,
  header: string | undefined,
  body: Uint8Array,
): Promise<SignatureDecision> {
  if (!secret) return UNSIGNED;
  return signatureDecision(await verifySignatureInSlices(header, secret, body));
}

const UNSIGNED: SignatureDecision = { kind: 'accept', signature: 'unsigned' };

function signatureDecision(check: SignatureCheck): SignatureDecision {
  if (check.ok) return { kind: 'accept', signature: 'ok' };
  if (check.reason === 'missing') return { kind: 'refuse-unsigned' };
  return { kind: 'ignore', reason: check.reason };
}
