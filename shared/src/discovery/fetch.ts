// Discovery reads small documents through the caller's one HTTP GET path (the subscriber's
// HttpGetter, the hub bridge's guarded getter: keep-alive Agent, redirects followed hop by hop,
// WS-3). This adapter only shapes its answer for discovery; the structural type keeps discovery
// free of either daemon's internals.

export interface FetchedPage {
  readonly requestedUrl: string;
  /** After redirects. */
  readonly url: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Media type, lower-cased, without parameters. */
  readonly contentType: string;
  /** The body decoded for reading links (HTML, robots.txt); lossy for bytes that are not UTF-8. */
  readonly text: string;
  /** The body as received: XML documents are parsed from these bytes, strictly (RS_XML_NOT_UTF8). */
  readonly body?: Uint8Array;
  /** Set when the answer came from another URL than the one asked for. */
  readonly redirects: readonly string[];
}

export interface PageFetcher {
  fetch(url: string, options?: { maxBytes?: number }): Promise<FetchedPage>;
}

/** What discovery needs of an HttpGetter. */
export interface GetLike {
  get(
    url: string,
    opts?: { maxBytes?: number; timeoutMs?: number },
  ): Promise<{
    readonly url: string;
    readonly status: number;
    readonly headers: Readonly<Record<string, string | string[] | undefined>>;
    readonly body: Buffer;
  }>;
}

export function pageFetcherFrom(
  http: GetLike,
  defaults: { maxBytes?: number; timeoutMs?: number } = {},
): PageFetcher {
  return {
    async fetch(url, options = {}) {
      const res = await http.get(url, {
        maxBytes: options.maxBytes ?? defaults.maxBytes ?? 8 * 1024 * 1024,
        timeoutMs: defaults.timeoutMs ?? 15_000,
      });
      const ct = res.headers['content-type'];
      return {
        requestedUrl: url,
        url: res.url,
        status: res.status,
        headers: res.headers,
        contentType: (Array.isArray(ct) ? ct[0] : ct)?.split(';')[0]?.trim().toLowerCase() ?? '',
        text: res.body.toString('utf8'),
        body: res.body,
        redirects: res.url !== url ? [url] : [],
      };
    },
  };
}
