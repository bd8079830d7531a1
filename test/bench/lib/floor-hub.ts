// The floor hub, run as its own process (like the hub and the raw sender): the least a hub with the
// hub's promises does per publish and per delivery, to tell what any hub could reach on this
// machine next to the raw sender. A publish is read whole, its topic taken from the Link header's
// rel="self", and inserted into SQLite (WAL, synchronous=NORMAL like the hub: an accepted
// notification survives a crash) in one transaction per event-loop turn; the 200 follows the
// commit. Each stored notification is then POSTed to every callback of its topic as the raw
// sender POSTs (lib/bare-post.ts, on the hub's Agent: same connections per origin, guarded
// connector), with the headers the hub sends (Content-Type and the publish's Link header), one
// POST in flight per callback and in order, at most HUB_IN_FLIGHT in all. It does less than any
// real hub: no token, no check of the body, no cursor or retry state, no metrics, no logs, so its
// rates are ceilings for the hub's. Subscriptions arrive over IPC: { cmd: 'subscribe', topic,
// callbacks } -> { ok }.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createOutboundAgent } from '@rsnotify/shared';
import { barePost } from './bare-post.js';

interface Stored {
  readonly body: Buffer;
  readonly headers: Record<string, string>;
}

interface Target {
  readonly origin: string;
  readonly path: string;
  /** Notifications not yet sent to this callback, oldest first (from `head` on). */
  readonly queue: Stored[];
  head: number;
  sending: boolean;
}

const maxInFlight = Number(process.env.MAX_IN_FLIGHT ?? 256);
const agent = createOutboundAgent({
  allowPrivateNetworks: true,
  connections: Number(process.env.CONNECTIONS ?? 16),
});
const db = new Database(join(process.env.WORK_DIR!, 'floor-hub.db'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(
  'CREATE TABLE IF NOT EXISTS notifications (id INTEGER PRIMARY KEY, topic TEXT NOT NULL, body BLOB NOT NULL)',
);
const insert = db.prepare('INSERT INTO notifications (topic, body) VALUES (?, ?)');

const topics = new Map<string, Target[]>();
/** Callbacks with something to send, waiting for a slot under maxInFlight. */
const ready: Target[] = [];
let readyHead = 0;
let inFlight = 0;

const SELF = /<([^>]*)>\s*;\s*rel="?self"?/;

function sent(t: Target): void {
  inFlight--;
  t.sending = false;
  if (t.head < t.queue.length) ready.push(t);
  pump();
}

function pump(): void {
  while (inFlight < maxInFlight && readyHead < ready.length) {
    const t = ready[readyHead++]!;
    if (t.sending || t.head >= t.queue.length) continue;
    const { body, headers } = t.queue[t.head++]!;
    if (t.head === t.queue.length) {
      t.queue.length = 0;
      t.head = 0;
    }
    t.sending = true;
    inFlight++;
    const done = (): void => sent(t); // a floor: a failed POST is not retried
    barePost(agent, t.origin, t.path, headers, body).then(done, done);
  }
  if (readyHead > 4096) {
    ready.splice(0, readyHead);
    readyHead = 0;
  }
}

interface Accepted extends Stored {
  readonly topic: string;
  readonly res: ServerResponse;
}
let batch: Accepted[] = [];

function commit(): void {
  const done = batch;
  batch = [];
  db.transaction(() => {
    for (const a of done) insert.run(a.topic, a.body);
  })();
  for (const a of done) {
    a.res.writeHead(200, { 'content-length': '0' }).end();
    for (const t of topics.get(a.topic) ?? []) {
      t.queue.push(a);
      if (!t.sending && t.queue.length - t.head === 1) ready.push(t);
    }
  }
  pump();
}

function publish(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const link = String(req.headers.link ?? '');
    const topic = SELF.exec(link)?.[1];
    if (!topic) {
      res.writeHead(400).end();
      return;
    }
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    const headers = { 'content-type': 'application/xml', link };
    if (batch.push({ topic, body, headers, res }) === 1) setImmediate(commit);
  });
}

const server = createServer(publish);
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.send!({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` });
});

process.on('message', (m: { cmd: 'subscribe'; topic: string; callbacks: string[] }) => {
  if (m.cmd !== 'subscribe') return;
  topics.set(
    m.topic,
    m.callbacks.map((c) => {
      const u = new URL(c);
      return {
        origin: u.origin,
        path: `${u.pathname}${u.search}`,
        queue: [],
        head: 0,
        sending: false,
      };
    }),
  );
  process.send!({ ok: true });
});
