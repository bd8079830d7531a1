import { createServer } from 'node:net';

/**
 * An ephemeral port that was free a moment ago. Used where a process must come back on the SAME port
 * after a restart (the hub URL and callback URLs are stored by the other parties).
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  return await new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}
