// WebSub constants and X-Hub-Signature (WH-18, WS-14): HMAC over the exact body bytes.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';

export const WEBSUB = {
  callback: 'hub.callback',
  mode: 'hub.mode',
  topic: 'hub.topic',
  url: 'hub.url',
  secret: 'hub.secret',
  leaseSeconds: 'hub.lease_seconds',
  challenge: 'hub.challenge',
  reason: 'hub.reason',
} as const;

export type WebSubMode = 'subscribe' | 'unsubscribe' | 'denied' | 'publish';

export type SignatureMethod = 'sha1' | 'sha256' | 'sha384' | 'sha512';
export const SIGNATURE_METHODS: readonly SignatureMethod[] = ['sha1', 'sha256', 'sha384', 'sha512'];

/** WH-8: a secret must be shorter than 200 bytes. */
export const MAX_SECRET_BYTES = 199;

export function computeSignature(
  method: SignatureMethod,
  secret: string | Uint8Array,
  body: Uint8Array | string,
): string {
  return createHmac(method, secret).update(body).digest('hex');
}

/** The header value: `sha256=<hex>`. */
export function signatureHeader(
  method: SignatureMethod,
  secret: string | Uint8Array,
  body: Uint8Array | string,
): string {
  return `${method}=${computeSignature(method, secret, body)}`;
}

/** How much of a body one step of an HMAC in slices hashes: about a millisecond of HMAC. */
export const SIGNATURE_SLICE_BYTES = 1024 * 1024;

/**
 * The HMAC of a large body without one long `update`: a 16 MiB body hashed in one piece held the
 * event loop for ~10 ms (per subscriber on the hub's fan-out); here the hash yields every
 * `sliceBytes`.
 */
async function hmacInSlices(
  method: SignatureMethod,
  secret: string | Uint8Array,
  body: Uint8Array,
  sliceBytes: number,
): Promise<Buffer> {
  const hmac = createHmac(method, secret);
  for (let at = 0; at < body.length; at += sliceBytes) {
    if (at > 0) await yieldToEventLoop();
    hmac.update(body.subarray(at, at + sliceBytes));
  }
  return hmac.digest();
}

/** signatureHeader over a large body, in slices (hmacInSlices). */
export async function signatureHeaderInSlices(
  method: SignatureMethod,
  secret: string | Uint8Array,
  body: Uint8Array,
  sliceBytes: number = SIGNATURE_SLICE_BYTES,
): Promise<string> {
  const digest = await hmacInSlices(method, secret, body, sliceBytes);
  return `${method}=${digest.toString('hex')}`;
}

export type SignatureCheck =
  | { ok: true; method: SignatureMethod }
  | { ok: false; reason: 'missing' | 'malformed' | 'unsupported-method' | 'mismatch' };

/** Verifies an `X-Hub-Signature` header in constant time; hex is compared case-insensitively. */
export function verifySignature(
  header: string | undefined | null,
  secret: string | Uint8Array,
  body: Uint8Array | string,
): SignatureCheck {
  const claim = parseSignatureHeader(header);
  if (!claim.ok) return claim;
  return compareSignature(claim, createHmac(claim.method, secret).update(body).digest());
}

/** verifySignature over a large body, in slices (hmacInSlices). */
export async function verifySignatureInSlices(
  header: string | undefined | null,
  secret: string | Uint8Array,
  body: Uint8Array,
  sliceBytes: number = SIGNATURE_SLICE_BYTES,
): Promise<SignatureCheck> {
  const claim = parseSignatureHeader(header);
  if (!claim.ok) return claim;
  return compareSignature(claim, await hmacInSlices(claim.method, secret, body, sliceBytes));
}

type SignatureClaim = { ok: true; method: SignatureMethod; given: string };

function parseSignatureHeader(
  header: string | undefined | null,
): SignatureClaim | Extract<SignatureCheck, { ok: false }> {
  if (header == null || header === '') return { ok: false, reason: 'missing' };
  const eq = header.indexOf('=');
  if (eq <= 0) return { ok: false, reason: 'malformed' };
  const method = header.slice(0, eq).trim().toLowerCase();
  const given = header.slice(eq + 1).trim();
  if (!(SIGNATURE_METHODS as readonly string[]).includes(method))
    return { ok: false, reason: 'unsupported-method' };
  if (!/^[0-9a-fA-F]+$/.test(given)) return { ok: false, reason: 'malformed' };
  return { ok: true, method: method as SignatureMethod, given };
}

function compareSignature(claim: SignatureClaim, expected: Buffer): SignatureCheck {
  const actual = Buffer.from(claim.given, 'hex');
  if (actual.length !== expected.length) return { ok: false, reason: 'mismatch' };
  return timingSafeEqual(actual, expected)
    ? { ok: true, method: claim.method }
    : { ok: false, reason: 'mismatch' };
}

const UNRESERVED_PCT = /%(4[1-9A-Fa-f]|5[0-9Aa]|6[1-9A-Fa-f]|7[0-9Aa]|3[0-9]|2[DEde]|5[Ff]|7[Ee])/g;

/**
 * WH-6: decode percent-encoded unreserved characters (ALPHA / DIGIT / "-" / "." / "_" / "~") so
 * that `http://a/%7Euser` and `http://a/~user` name the same topic. Nothing else is touched.
 */
export function normaliseTopicUrl(url: string): string {
  return url.replace(UNRESERVED_PCT, (m, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(ch) ? ch : m;
  });
}

/** An absolute http(s) URL without a fragment, or the reason it is not one (WH-6). */
export function checkHttpUrl(value: string, what: string): string | undefined {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return `${what} is not an absolute URL`;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    return `${what} must be an http or https URL`;
  }
  if (!u.hostname) return `${what} has no host`;
  if (value.includes('#')) return `${what} must not have a fragment`;
  return undefined;
}
