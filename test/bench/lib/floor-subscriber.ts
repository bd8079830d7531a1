// The floor subscriber, for the publish-to-file chain floor: the least a subscriber with our
// subscriber's promises does between a delivery and the file, in the bench process like ours. A
// delivery's body is inserted into SQLite (WAL, synchronous=NORMAL) and committed; its WAL is then
// fdatasync'd off the main thread and the 202 follows the sync (WS-11, the inbox's promise). Right
// after the commit, as ours does, the body's <loc>s are read by a regular expression and each
// created or updated resource is fetched and written as the mirror writes a file: a temporary file
// (opened while the GET is in flight, as ours is), fsync, rename (deleted ones are unlinked). No signature, no parse, no ordering, no state, no
// metrics, no logs: what it takes is a floor for our subscriber's part of the chain.
import { fdatasync, openSync, closeSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { uriToMirrorPath } from '@rsnotify/subscriber';

export interface FloorSubscriber {
  /** The callback URL to subscribe (its path holds /callback/, as ours does). */
  readonly callback: string;
  close(): Promise<void>;
}

const URL_ENTRY = /<url>[\s\S]*?<loc>([^<]*)<\/loc>[\s\S]*?change="(created|updated|deleted)"/g;

function unescapeXml(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|apos);/g, (_m, e: string) =>
    e === 'amp' ? '&' : e === 'lt' ? '<' : e === 'gt' ? '>' : e === 'quot' ? '"' : "'",
  );
}

export async function startFloorSubscriber(
  dir: string,
  mirrorDir: string,
): Promise<FloorSubscriber> {
  await mkdir(mirrorDir, { recursive: true });
  const dbFile = join(dir, 'floor-subscriber.db');
  const db = new Database(dbFile);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(
    'CREATE TABLE IF NOT EXISTS inbox (id INTEGER PRIMARY KEY, received_at INTEGER NOT NULL, body BLOB NOT NULL)',
  );
  const insert = db.prepare('INSERT INTO inbox (received_at, body) VALUES (?, ?)');
  const wal = openSync(`${dbFile}-wal`, 'r+');
  const dirs = new Set<string>();
  let temp = 0;

  async function writeDurably(uri: string): Promise<void> {
    const path = uriToMirrorPath(mirrorDir, uri);
    const parent = dirname(path);
    const tmp = join(parent, `.floor-${temp++}.tmp`);
    // The temporary file is opened while the GET is in flight, as our mirror does.
    const opening = (async () => {
      if (!dirs.has(parent)) {
        await mkdir(parent, { recursive: true });
        dirs.add(parent);
      }
      return open(tmp, 'wx');
    })();
    const res = await request(uri);
    const body = Buffer.from(await res.body.arrayBuffer());
    const handle = await opening;
    try {
      await handle.write(body);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  }

  async function apply(body: Buffer): Promise<void> {
    for (const m of body.toString('utf8').matchAll(URL_ENTRY)) {
      const uri = unescapeXml(m[1]!.trim());
      if (m[2] === 'deleted') await rm(uriToMirrorPath(mirrorDir, uri), { force: true });
      else await writeDurably(uri);
    }
  }

  let applying = Promise.resolve();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      db.transaction(() => insert.run(Date.now(), body))();
      fdatasync(wal, (err) => res.writeHead(err ? 500 : 202, { 'content-length': '0' }).end());
      // One notification at a time, in arrival order, as a mirror must apply them.
      applying = applying.then(() => apply(body)).catch(() => undefined);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    callback: `http://127.0.0.1:${port}/callback/floor`,
    async close() {
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
      await applying;
      closeSync(wal);
      db.close();
    },
  };
}
