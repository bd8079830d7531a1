// A stand-in "hub" for tests: a real HTTP server on 127.0.0.1 that records every POST it receives
// (headers and exact body bytes) and answers with a status the test chooses. The hub is a party
// outside the simulator, so a fake that speaks real HTTP is allowed here (engineering standards).
import { createServer, type IncomingHttpHeaders } from 'node:http';

export interface CapturedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly receivedAt: number;
}

export interface CaptureHub {
  readonly url: string;
  readonly received: CapturedRequest[];
  /** The status for the next requests (default 200), or a function of the request. */
  respondWith(status: number | ((req: CapturedRequest, index: number) => number)): void;
  close(): Promise<void>;
}

export async function startCaptureHub(path = '/hub'): Promise<CaptureHub> {
  const received: CapturedRequest[] = [];
  let decide: (req: CapturedRequest, index: number) => number = () => 200;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const captured: CapturedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        receivedAt: Date.now(),
      };
      const index = received.length;
      received.push(captured);
      res.writeHead(decide(captured, index), { 'content-length': '0' });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    respondWith(status) {
      decide = typeof status === 'number' ? () => status : status;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
