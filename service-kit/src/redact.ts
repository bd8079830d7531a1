// Callback URLs in logs and CLI output: a subscriber's callback path is a capability (whoever knows
// it can post notifications into that mirror), so only the origin is shown, with a short hash of the
// path and query so one callback can still be followed across log lines.
import { createHash } from 'node:crypto';

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/**
 * `https://mirror.example/cb/SECRET?x=1` → `https://mirror.example/[path:4be1a6f02c9d]`. A value
 * that is not an absolute URL is replaced by its hash whole. A URL with an empty path stays as is.
 */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `[redacted:${shortHash(url)}]`;
  }
  const rest = `${u.pathname}${u.search}${u.hash}`;
  if (rest === '/' || rest === '') return u.origin;
  return `${u.origin}/[path:${shortHash(rest)}]`;
}

/** For a log field that may be missing. */
export function redactOptionalUrl(url: unknown): unknown {
  return typeof url === 'string' ? redactUrl(url) : url;
}

/**
 * pino serializers for the fields that carry callback URLs in both daemons: every log line with
 * one of these keys shows the redacted form, whoever wrote it.
 */
export const CALLBACK_LOG_SERIALIZERS: Readonly<Record<string, (value: unknown) => unknown>> = {
  callback: redactOptionalUrl,
  callbackUrl: redactOptionalUrl,
};
