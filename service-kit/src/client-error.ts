// The answer to a request head Node's HTTP parser refused before any app saw it (the server's
// 'clientError' event): oversized headers, a malformed head, a head that came too slowly, a
// transfer coding we do not implement. Both daemons answer these the same way, with a log line and
// a metric, and close the connection.
import type { Server } from 'node:http';

export interface ClientErrorAnswer {
  /** e.g. 431 */
  readonly status: number;
  /** The status line's text, e.g. 'Request Header Fields Too Large'. */
  readonly text: string;
  /** A stable label for metrics: the parser's error code, or 'client_error'. */
  readonly reason: string;
}

export function clientErrorAnswer(
  code: string | undefined,
  parserReason: string | undefined,
): ClientErrorAnswer {
  const reason = code ?? 'client_error';
  if (code === 'HPE_HEADER_OVERFLOW')
    return { status: 431, text: 'Request Header Fields Too Large', reason };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, text: 'Request Timeout', reason };
  // RFC 9112 §6.1: a transfer coding we do not implement (but Transfer-Encoding together with
  // Content-Length, which the parser reports under the same code, is a smuggling shape: 400).
  if (code === 'HPE_INVALID_TRANSFER_ENCODING' && !/content-length/i.test(parserReason ?? ''))
    return { status: 501, text: 'Not Implemented', reason };
  return { status: 400, text: 'Bad Request', reason };
}

/** A request head the parser let through but whose framing a daemon refuses, with why. */
export interface FramingProblem {
  /** RFC 9112 §3.2: answered 400. RFC 9112 §6.1: answered 501, the connection closed. */
  readonly kind: 'duplicate_host' | 'transfer_encoding';
  readonly status: 400 | 501;
  readonly text: string;
}

/**
 * The framing checks both daemons make on every request before an app looks at it: more than one
 * Host (RFC 9112 §3.2), or a transfer coding other than chunked, which neither decodes, so the
 * body's end cannot be found (RFC 9112 §6.1).
 */
export function framingProblem(head: {
  readonly rawHeaders: readonly string[];
  readonly headers: { readonly 'transfer-encoding'?: string };
}): FramingProblem | undefined {
  let hosts = 0;
  const raw = head.rawHeaders;
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') hosts++;
  if (hosts > 1) return { kind: 'duplicate_host', status: 400, text: 'more than one Host header' };
  const te = head.headers['transfer-encoding'];
  if (te !== undefined && te.trim().toLowerCase() !== 'chunked')
    return {
      kind: 'transfer_encoding',
      status: 501,
      text: `Transfer-Encoding ${JSON.stringify(te)} is not supported (only chunked)`,
    };
  return undefined;
}

/**
 * The path of a request target (origin-form `/p?q`, or absolute-form `http://h/p?q`), or undefined:
 * what both daemons route their hot POST by before the rest goes to the Hono app.
 */
export function targetPath(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  if (url.startsWith('/')) {
    const q = url.indexOf('?');
    return q === -1 ? url : url.slice(0, q);
  }
  // The absolute form (RFC 9112 §3.2.2) is an http(s) URL; anything else targets no path of ours.
  return /^https?:\/\//i.test(url) && URL.canParse(url) ? new URL(url).pathname : undefined;
}

/** The bytes written back on the raw socket before it is closed. */
export function clientErrorResponse(a: ClientErrorAnswer): string {
  return `HTTP/1.1 ${a.status} ${a.text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`;
}

export interface ClientErrorHooks {
  /**
   * Every refused head, answered or not (a socket the peer already closed is only destroyed): the
   * daemon's log line and metric. `code` is the parser's error code as it came.
   */
  rejected(answer: ClientErrorAnswer, code: string | undefined): void;
}

/** Answers the heads the server's parser refused ('clientError') and closes their connections. */
export function answerClientErrors(server: Server, hooks: ClientErrorHooks): void {
  server.on('clientError', (err: Error & { code?: string; reason?: string }, socket) => {
    const answer = clientErrorAnswer(err.code, err.reason);
    hooks.rejected(answer, err.code);
    if (socket.writable) socket.end(clientErrorResponse(answer));
    else socket.destroy();
  });
}
