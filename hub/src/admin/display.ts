// Small display helpers of the console and the admin API (callback and free-text redaction is
// service-kit's redactUrl / redactText, shared with the logs).

/** The origin of a callback, for filters and grouping; undefined when it is not a URL. */
export function urlOrigin(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** A stored token hash shown as a short fingerprint, never the token. */
export function tokenFingerprint(tokenHash: string): string {
  return `sha256:${tokenHash.slice(0, 8)}`;
}
