// The subscriber's one outbound HTTP GET path (mirror fetches, Change Lists, Resource Lists and, for
// the CONTROL side, discovery): undici `request` over the guarded keep-alive Agent from
// @rsnotify/shared (SSRF guard in its connector, every redirect hop included), a bounded number of
// connections per origin, timeouts, a body size limit, and bodies always consumed or dumped.
// Retrying is NOT done here: callers decide with a pure policy (retry-policy.ts).
import { request, type Dispatcher } from 'undici';
import { checkOutboundUrl, createOutboundAgent } from '@rsnotify/shared';
import { MirrorError } from './errors.js';

export type HttpHeaders = Readonly<Record<string, string | string[] | undefined>>;

export interface HttpResponse {
  /** The URL that answered (after redirects). */
  readonly url: string;
  readonly status: number;
  readonly headers: HttpHeaders;
  readonly body: Buffer;
}

export interface HttpStream {
  readonly url: string;
  readonly status: number;
  readonly headers: HttpHeaders;
  /** Must be read to the end or dumped. */
  readonly body: AsyncIterable<Uint8Array>;
  /** Discards the rest of the body (returns the connection to the pool). */
  dump(): Promise<void>;
}

export interface GetOptions {
  /** Largest body accepted; larger ones fail with RSN_HTTP_TOO_LARGE. */
  readonly maxBytes?: number;
  /** Whole-request deadline (headers and body). */
  readonly timeoutMs?: number;
  /** Follow 301/302/303/307/308 (default true, at most 5 hops). */
  readonly followRedirects?: boolean;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface HttpGetter {
  get(url: string, opts?: GetOptions): Promise<HttpResponse>;
  stream(url: string, opts?: Omit<GetOptions, 'maxBytes'>): Promise<HttpStream>;
  close(): Promise<void>;
}

export interface HttpGetterOptions {
  readonly allowPrivateNetworks: boolean;
  /** Connections per origin (default 8). */
  readonly perHostConcurrency?: number;
  readonly userAgent?: string;
  /** Default whole-request deadline (default 30 s). */
  readonly timeoutMs?: number;
  /** Default body limit for get() (default 64 MiB: a 50 MB list (RC-4) plus slack). */
  readonly maxBytes?: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

/** Reads a header as one string (first value when repeated). */
export function headerValue(headers: HttpHeaders, name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

export function createHttpGetter(options: HttpGetterOptions): HttpGetter {
  const agent = createOutboundAgent({
    allowPrivateNetworks: options.allowPrivateNetworks,
    connections: options.perHostConcurrency ?? 8,
  });
  const userAgent = options.userAgent ?? 'rsnotify-subscriber';
  const defaultTimeout = options.timeoutMs ?? 30_000;
  const defaultMaxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const policy = { allowPrivateNetworks: options.allowPrivateNetworks };

  async function open(
    url: string,
    opts: Omit<GetOptions, 'maxBytes'>,
    signal: AbortSignal,
  ): Promise<HttpStream> {
    let current = url;
    for (let hop = 0; ; hop++) {
      checkOutboundUrl(current, policy);
      const res: Dispatcher.ResponseData = await request(current, {
        method: 'GET',
        dispatcher: agent,
        signal,
        headers: { 'user-agent': userAgent, ...opts.headers },
      });
      const location = headerValue(res.headers, 'location');
      if (
        (opts.followRedirects ?? true) &&
        REDIRECTS.has(res.statusCode) &&
        location &&
        hop < MAX_REDIRECTS
      ) {
        await res.body.dump();
        current = new URL(location, current).href;
        continue;
      }
      const body = res.body;
      return {
        url: current,
        status: res.statusCode,
        headers: res.headers,
        body,
        dump: async () => {
          await body.dump().catch(() => undefined);
        },
      };
    }
  }

  return {
    async get(url, opts = {}) {
      const maxBytes = opts.maxBytes ?? defaultMaxBytes;
      const signal = AbortSignal.timeout(opts.timeoutMs ?? defaultTimeout);
      const res = await open(url, opts, signal);
      const declared = Number(headerValue(res.headers, 'content-length'));
      if (Number.isFinite(declared) && declared > maxBytes) {
        await res.dump();
        throw tooLarge(res.url, maxBytes);
      }
      const chunks: Uint8Array[] = [];
      let size = 0;
      try {
        for await (const chunk of res.body) {
          size += chunk.length;
          if (size > maxBytes) throw tooLarge(res.url, maxBytes);
          chunks.push(chunk);
        }
      } catch (err) {
        await res.dump();
        throw err;
      }
      return {
        url: res.url,
        status: res.status,
        headers: res.headers,
        body: Buffer.concat(chunks, size),
      };
    },

    async stream(url, opts = {}) {
      return open(url, opts, AbortSignal.timeout(opts.timeoutMs ?? defaultTimeout));
    },

    async close() {
      await agent.close();
    },
  };
}

function tooLarge(url: string, maxBytes: number): MirrorError {
  return new MirrorError('RSN_HTTP_TOO_LARGE', `response from ${url} exceeds ${maxBytes} bytes`, {
    details: { url, maxBytes },
  });
}

/**
 * Reads up to `limit` bytes ahead. `complete` when the whole body was read; `chunks` yields what was
 * read and then the rest of the body.
 */
export async function readAhead(
  body: AsyncIterable<Uint8Array>,
  limit: number,
): Promise<{ complete: boolean; chunks: AsyncIterable<Uint8Array> }> {
  const it = body[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let size = 0;
  let complete = false;
  while (size <= limit) {
    const next = await it.next();
    if (next.done) {
      complete = true;
      break;
    }
    head.push(next.value);
    size += next.value.length;
  }
  async function* chunks(): AsyncGenerator<Uint8Array> {
    yield* head;
    if (complete) return;
    for (;;) {
      const next = await it.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { complete, chunks: chunks() };
}
