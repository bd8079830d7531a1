// The receivers the subscriber intake is measured against, each run as a child process of plain
// JavaScript (`node --input-type=module -e`): the raw receiver (no work at all) and the durable
// floor (only what the intake's promise itself costs).

// The raw receiver: reads the body, answers 202.
export const RAW_RECEIVER_JS = String.raw`
import { createServer } from 'node:http';
const s = createServer((req, res) => { req.on('data', () => undefined); req.on('end', () => res.writeHead(202).end()); });
s.keepAliveTimeout = 60000;
s.listen(0, '127.0.0.1', () => process.send({ origin: 'http://127.0.0.1:' + s.address().port }));
`;

// The durable floor: the least a receiver with the intake's
// promise does. It reads the body, checks the HMAC-SHA256 signature in constant time, inserts the
// raw body into SQLite (WAL, synchronous=NORMAL, one transaction per event-loop turn, or for all
// that arrived while the last sync ran), fdatasyncs the WAL off the main thread, and only then
// answers 202 (WS-11). It does less than any real subscriber: no parse, no ordering, no apply, no
// state, no metrics, and no checkpoints (the WAL only grows), so its rate is a ceiling for ours.
// With SYNC=none it answers after the commit without the fdatasync: not a valid receiver (a power
// loss takes back what it answered), only the stage split between the signature and store and the
// sync. (Appending the bodies to a plain file instead of SQLite read the same within noise: 0.48
// against 0.53 of the raw receiver, so the floor does not hinge on the store.)
export const DURABLE_FLOOR_JS = String.raw`
import { createServer } from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { openSync, fdatasync } from 'node:fs';
import Database from 'better-sqlite3';
const db = new Database(process.env.DB_FILE);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('wal_autocheckpoint = 0');
db.exec('CREATE TABLE inbox (id INTEGER PRIMARY KEY, received_at INTEGER NOT NULL, body BLOB NOT NULL)');
const insert = db.prepare('INSERT INTO inbox (received_at, body) VALUES (?, ?)');
const wal = openSync(process.env.DB_FILE + '-wal', 'r+');
const secret = process.env.SECRET;
let queued = [];
let syncing = false;
let scheduled = false;
function commit() {
  scheduled = false;
  if (syncing || queued.length === 0) return;
  const batch = queued;
  queued = [];
  db.transaction(() => { for (const w of batch) insert.run(w.at, w.body); })();
  syncing = true;
  (process.env.SYNC === 'none' ? (fd, done) => setImmediate(done) : fdatasync)(wal, (err) => {
    syncing = false;
    for (const w of batch) w.res.writeHead(err ? 500 : 202).end();
    commit();
  });
}
const s = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    const sig = String(req.headers['x-hub-signature'] ?? '');
    const given = Buffer.from(sig.slice(sig.indexOf('=') + 1), 'hex');
    const wanted = createHmac('sha256', secret).update(body).digest();
    if (!sig.startsWith('sha256=') || given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
      res.writeHead(403).end();
      return;
    }
    queued.push({ at: Date.now(), body, res });
    if (!scheduled && !syncing) { scheduled = true; setImmediate(commit); }
  });
});
s.keepAliveTimeout = 60000;
s.listen(0, '127.0.0.1', () => process.send({ origin: 'http://127.0.0.1:' + s.address().port }));
`;
