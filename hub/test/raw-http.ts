// Raw HTTP/1.1 over a TCP socket, for requests no HTTP client would send (two Host headers, a
// Transfer-Encoding we do not implement) and for watching what a refused upload sees: the status
// line, or the connection cut under it.
import { connect } from 'node:net';

export interface RawAnswer {
  /** The status code, or undefined when the connection ended without one. */
  readonly status: number | undefined;
  readonly head: string;
  /** The error the socket reported while we were sending (EPIPE, ECONNRESET), if any. */
  readonly sendError: string | undefined;
  /** Body bytes we managed to write before the answer came or the socket closed. */
  readonly bytesWritten: number;
}

export interface RawRequestOptions {
  /** Body bytes to send after the head, in chunks of `chunkBytes`. */
  readonly body?: Buffer;
  readonly chunkBytes?: number;
  /** Stop sending as soon as a status line arrived (a client that reads while it writes). */
  readonly stopOnAnswer?: boolean;
  readonly timeoutMs?: number;
}

export function rawRequest(
  port: number,
  head: string,
  options: RawRequestOptions = {},
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let sendError: string | undefined;
    let written = 0;
    let answered = false;
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(received);
      resolve({
        status: m ? Number(m[1]) : undefined,
        head: received.split('\r\n\r\n')[0] ?? '',
        sendError,
        bytesWritten: written,
      });
    };
    const timer = setTimeout(finish, options.timeoutMs ?? 20_000);
    socket.on('data', (d: Buffer) => {
      received += d.toString('latin1');
      if (!answered && received.includes('\r\n\r\n')) {
        answered = true;
        // Give the rest of a short answer a moment, then stop.
        setTimeout(finish, 50);
      }
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      sendError ??= err.code ?? err.message;
    });
    socket.on('close', () => setTimeout(finish, 10));
    // The listener cannot be async (a rejection would be lost): the writes run in their own task.
    socket.on(
      'connect',
      () =>
        void (async () => {
          socket.write(head);
          const body = options.body;
          if (!body) return;
          const step = options.chunkBytes ?? 64 * 1024;
          for (let off = 0; off < body.length && !socket.destroyed; off += step) {
            if (options.stopOnAnswer && answered) break;
            const chunk = body.subarray(off, off + step);
            const ok = socket.write(chunk, (err) => {
              if (err) sendError ??= (err as NodeJS.ErrnoException).code ?? err.message;
            });
            written += chunk.length;
            if (!ok)
              await new Promise<void>((r) => {
                socket.once('drain', r);
                socket.once('close', r);
              });
          }
        })(),
    );
  });
}
