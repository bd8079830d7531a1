// The bridge's only way out to a Source: guarded GETs (the outbound SSRF guard on every hop, WS-3
// redirects followed one by one), conditional (ETag, If-Modified-Since), size-limited, and one
// request at a time per Source origin, with that origin's Retry-After honoured by every poller.
import type { Dispatcher } from 'undici';
import {
  checkOutboundUrl,
  RsnotifyError,
  type GetLike,
  type OutboundPolicy,
} from '@rsnotify/shared';
import type { HubCodesOf } from '../errors/index.js';

export interface Validators {
  readonly etag?: string;
  readonly lastModified?: string;
}

export interface GetResult {
  /** After redirects. */
  readonly url: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
}

/**
 * RSN_BRIDGE_HTTP_STATUS: 429 or 5xx, the Source asks us to slow down (retryAfterMs when it said).
 * RSN_BRIDGE_TOO_LARGE: a document above the size limit. RSN_BRIDGE_REDIRECTS: too many hops.
 */
export class BridgeHttpError extends RsnotifyError<HubCodesOf<'BridgeHttpError'>> {
  constructor(
    code: HubCodesOf<'BridgeHttpError'>,
    message: string,
    readonly status: number | undefined,
    readonly retryAfterMs: number | undefined,
    details: Record<string, unknown>,
  ) {
    super(code, message, { details });
    this.name = 'BridgeHttpError';
  }
}

const MAX_REDIRECTS = 5;
const MAX_RETRY_AFTER_MS = 6 * 3_600_000;

export function headerValue(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  name: string,
): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** RFC 9110 Retry-After: delay-seconds or an HTTP-date; capped so a typo cannot park a Source for ever. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  let ms: number | undefined;
  if (/^\d+$/.test(v)) ms = Number(v) * 1000;
  else {
    const at = Date.parse(v);
    if (!Number.isNaN(at)) ms = Math.max(0, at - nowMs);
  }
  return ms === undefined ? undefined : Math.min(ms, MAX_RETRY_AFTER_MS);
}

export interface SourceGetterOptions {
  readonly agent: Dispatcher;
  readonly outbound: OutboundPolicy;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly now: () => number;
  readonly userAgent?: string;
}

/**
 * One queue per origin: requests to a Source run one after another, and after a Retry-After the
 * origin stays quiet until it has passed, whichever bridged Source asks.
 */
export class SourceGetter implements GetLike {
  private readonly tails = new Map<string, Promise<unknown>>();
  private readonly quietUntil = new Map<string, number>();
  /** Requests sent per origin (for tests and metrics). */
  readonly sent = new Map<string, number>();

  constructor(private readonly o: SourceGetterOptions) {}

  /** When the origin may be asked again (Retry-After), or undefined. */
  notBefore(url: string): number | undefined {
    const at = this.quietUntil.get(new URL(url).origin);
    return at !== undefined && at > this.o.now() ? at : undefined;
  }

  private serial<T>(origin: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(origin) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.tails.set(origin, tail);
    void tail.then(() => {
      if (this.tails.get(origin) === tail) this.tails.delete(origin);
    });
    return run;
  }

  /** Plain GET (discovery): 429/5xx are answers here, the caller decides. */
  get(url: string, opts: { maxBytes?: number; timeoutMs?: number } = {}): Promise<GetResult> {
    return this.fetch(url, {}, opts.maxBytes);
  }

  /** Conditional GET; 304 comes back as status 304 with an empty body. */
  fetch(url: string, validators: Validators, maxBytes = this.o.maxBytes): Promise<GetResult> {
    const origin = new URL(url).origin;
    return this.serial(origin, async () => {
      let current = url;
      for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
        const u = checkOutboundUrl(current, this.o.outbound);
        const res = await this.once(u, hop === 0 ? validators : {}, maxBytes);
        if (res.status >= 300 && res.status < 400 && res.status !== 304) {
          const location = headerValue(res.headers, 'location');
          if (!location) return res;
          current = new URL(location, current).href;
          continue;
        }
        return res;
      }
      throw new BridgeHttpError(
        'RSN_BRIDGE_REDIRECTS',
        `GET ${url}: more than ${MAX_REDIRECTS} redirects`,
        undefined,
        undefined,
        { url },
      );
    });
  }

  private async once(u: URL, validators: Validators, maxBytes: number): Promise<GetResult> {
    const headers: Record<string, string> = {
      accept: 'application/xml, text/xml;q=0.9, */*;q=0.1',
      'user-agent': this.o.userAgent ?? 'rsnotify-hub-bridge',
    };
    if (validators.etag) headers['if-none-match'] = validators.etag;
    if (validators.lastModified) headers['if-modified-since'] = validators.lastModified;
    this.sent.set(u.origin, (this.sent.get(u.origin) ?? 0) + 1);
    const res = await this.o.agent.request({
      origin: u.origin,
      path: `${u.pathname}${u.search}`,
      method: 'GET',
      headers,
      headersTimeout: this.o.timeoutMs,
      bodyTimeout: this.o.timeoutMs,
    });
    const declared = Number(headerValue(res.headers, 'content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      res.body.destroy();
      throw new BridgeHttpError(
        'RSN_BRIDGE_TOO_LARGE',
        `GET ${u.href}: ${declared} bytes, limit ${maxBytes}`,
        res.statusCode,
        undefined,
        { url: u.href, limit: maxBytes },
      );
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        res.body.destroy();
        throw new BridgeHttpError(
          'RSN_BRIDGE_TOO_LARGE',
          `GET ${u.href}: more than ${maxBytes} bytes`,
          res.statusCode,
          undefined,
          { url: u.href, limit: maxBytes },
        );
      }
      chunks.push(chunk as Buffer);
    }
    const status = res.statusCode;
    if (status === 429 || status === 503 || (status >= 500 && status <= 599)) {
      const retryAfterMs = parseRetryAfter(headerValue(res.headers, 'retry-after'), this.o.now());
      if (retryAfterMs !== undefined) this.quietUntil.set(u.origin, this.o.now() + retryAfterMs);
    }
    return { url: u.href, status, headers: res.headers, body: Buffer.concat(chunks, size) };
  }
}
