// Browser safety for the daemons' pages: a state change (a POST from a form or a script) sent by
// another site is refused whatever credentials it carries. Pure over the request's method and
// headers, so both daemons' HTTP layers use the one rule.

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface CrossSiteHeaders {
  readonly method: string;
  readonly secFetchSite?: string | undefined;
  readonly origin?: string | undefined;
  readonly host?: string | undefined;
}

/** True for a state change that another site sent (or whose origin cannot be told). */
export function isCrossSiteRequest(r: CrossSiteHeaders): boolean {
  if (SAFE_METHODS.has(r.method.toUpperCase())) return false;
  // Browsers send Sec-Fetch-Site on every request: it is the surest signal. Origin is checked for
  // the clients that do not (older browsers), and 'null' (a sandboxed or opaque origin) is refused.
  if (r.secFetchSite !== undefined)
    return r.secFetchSite !== 'same-origin' && r.secFetchSite !== 'none';
  if (r.origin === undefined) return false;
  try {
    return r.origin === 'null' || r.host === undefined || new URL(r.origin).host !== r.host;
  } catch {
    return true;
  }
}
