// A plain-text answer written on node:http, as Hono's `c.text` answers: the routes both daemons
// serve beside their Hono apps (the hub's publish POST, the subscriber's delivery POST) answer
// with it, so the two kinds of route look the same to a client.
import type { ServerResponse } from 'node:http';

const TEXT = 'text/plain; charset=UTF-8';

export function answerText(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, {
    'content-type': TEXT,
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}
