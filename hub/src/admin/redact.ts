// What the console and the admin API may show of secret-bearing values. A callback URL's path and
// query are a capability (whoever knows them can deliver to the subscriber), so only the origin and a
// short hash leave the hub; the hash lets an operator tell two callbacks of one origin apart.
import { createHash } from 'node:crypto';

export function shortHash(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 10);
}

/** `https://mirror.example/…#1a2b3c4d5e`: origin plus a short hash of the whole URL. */
export function redactUrl(url: string): string {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    return `(unparsable URL #${shortHash(url)})`;
  }
  return `${origin}/…#${shortHash(url)}`;
}

export function urlOrigin(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

const URL_IN_TEXT = /https?:\/\/[^\s"'<>]+/g;
const TOKEN_IN_TEXT = /\brsn(?:adm)?_[A-Za-z0-9_-]{16,}/g;

/** Free text (an error, a refusal reason) with every URL redacted and anything token-shaped cut. */
export function redactText(text: string): string {
  return text.replace(URL_IN_TEXT, (u) => redactUrl(u)).replace(TOKEN_IN_TEXT, '[token]');
}

/** A stored token hash shown as a short fingerprint, never the token. */
export function tokenFingerprint(tokenHash: string): string {
  return `sha256:${tokenHash.slice(0, 8)}`;
}
