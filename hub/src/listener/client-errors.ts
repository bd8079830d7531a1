// Request heads Node's HTTP parser refused (nothing of them reached the app): a defined status, a log
// line and a metric, nothing more.
import type { Server } from 'node:http';

export interface ClientErrorEvents {
  rejected(status: number, code: string | undefined): void;
}

/** The answer to a request head Node's parser refused. */
export function clientErrorStatus(code: string | undefined, reason: string | undefined): string {
  if (code === 'HPE_HEADER_OVERFLOW') return '431 Request Header Fields Too Large';
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return '408 Request Timeout';
  // RFC 9112 §6.1: a transfer coding we do not implement (but Transfer-Encoding together with
  // Content-Length, which the parser reports under the same code, is a smuggling shape: 400).
  if (code === 'HPE_INVALID_TRANSFER_ENCODING' && !/content-length/i.test(reason ?? ''))
    return '501 Not Implemented';
  return '400 Bad Request';
}

export function answerClientErrors(server: Server, events: ClientErrorEvents): void {
  server.on('clientError', (err, socket) => {
    const code = (err as { code?: string }).code;
    const status = clientErrorStatus(code, (err as { reason?: string }).reason);
    events.rejected(Number.parseInt(status, 10), code);
    if (socket.writable)
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    else socket.destroy();
  });
}
