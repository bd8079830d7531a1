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
// With CHECK_TOKEN_SHA256 set it is the checked floor: before storing, it also does the least the
// protocol requires of any hub's publish intake, and answers 401/400 otherwise: the Bearer token's
// sha256 is compared in constant time (RT-5; a token's hash is remembered, as the hub does), and the
// body is parsed once with saxes, the parser our reader builds on, in plain mode: well-formed, a
// <urlset> root and an rs:md capability="change-notification" (RT-7, RN-1, RN-2). No namespaces, no
// limits, no entries, no times checked: less than any conforming check.
import { createHash, timingSafeEqual } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SaxesParser } from 'saxes';
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
mkdirSync(process.env.WORK_DIR!, { recursive: true });
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

const expectedTokenHash = process.env.CHECK_TOKEN_SHA256
  ? Buffer.from(process.env.CHECK_TOKEN_SHA256, 'hex')
  : undefined;
const tokenHashes = new Map<string, Buffer>();

function tokenMatches(authorization: string | undefined): boolean {
  const token = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
  if (!token) return false;
  let hash = tokenHashes.get(token);
  if (!hash) tokenHashes.set(token, (hash = createHash('sha256').update(token).digest()));
  return timingSafeEqual(hash, expectedTokenHash!);
}

/** Well-formed, a <urlset> root, an rs:md child with capability="change-notification". */
function isChangeNotification(body: Buffer): boolean {
  const parser = new SaxesParser({ xmlns: false });
  let depth = 0;
  let root = '';
  let capability = '';
  parser.on('opentag', (tag) => {
    if (depth === 0) root = tag.name;
    else if (depth === 1 && tag.name === 'rs:md' && !capability)
      capability = String(tag.attributes.capability ?? '');
    if (!tag.isSelfClosing) depth++;
  });
  parser.on('closetag', (tag) => {
    if (!tag.isSelfClosing) depth--;
  });
  try {
    parser.write(body.toString('utf8')).close();
  } catch {
    return false;
  }
  return root === 'urlset' && capability === 'change-notification';
}

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
    if (expectedTokenHash && !tokenMatches(req.headers.authorization)) {
      res.writeHead(401).end();
      return;
    }
    if (expectedTokenHash && !isChangeNotification(body)) {
      res.writeHead(400).end();
      return;
    }
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

// Stopped with SIGTERM: exit normally, so that node --cpu-prof (BENCH_CPU_PROF) writes its profile.
process.on('SIGTERM', () => process.exit(0));
