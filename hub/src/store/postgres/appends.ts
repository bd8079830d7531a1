// Appending notifications in the PostgreSQL engine. Publishes are group-committed per process (one
// transaction per event-loop turn, one batch at a time); the topic row is bumped with
// INSERT ... ON CONFLICT DO UPDATE ... RETURNING, whose row lock keeps per-topic sequence numbers
// gap-free and ordered under concurrent publishers in other processes (M-3). The bridge appends
// with the same statement inside its own poll transaction (bridge.ts).
import type pg from 'pg';
import { StoreError } from '../errors.js';
import type { NewNotification } from '../repository.js';
import { HUB_CHANNEL, encodeEvent } from './events.js';
import { inClientTransaction } from './context.js';
import { insertInParts } from './payloads.js';

export type Appended = { topicId: number; seq: number };

/** Bodies above this are stored in parts (service-kit's bodyParts), a statement each. */
const INLINE_BODY_BYTES = 64 * 1024;

type Pending = {
  n: NewNotification;
  resolve: (r: Appended) => void;
  reject: (e: unknown) => void;
};

/**
 * Inside an open transaction: each topic bumped once (in URL order, so concurrent batches in other
 * processes cannot deadlock), the rows inserted, and every process that delivers a topic woken by
 * pg_notify when (and only if) the transaction commits. Returns (topicId, seq) in input order.
 */
export async function appendInTransaction(
  client: pg.PoolClient,
  batch: readonly NewNotification[],
): Promise<Appended[]> {
  if (batch.length === 0) return [];
  const counts = new Map<string, number>();
  for (const n of batch) counts.set(n.topicUrl, (counts.get(n.topicUrl) ?? 0) + 1);
  const ends = new Map<string, { id: number; lastSeq: number }>();
  for (const url of [...counts.keys()].sort()) {
    const r = await client.query<{ id: number; last_seq: number }>({
      name: 'rsn_bump_topic',
      text: `INSERT INTO topics (url, last_seq, created_at) VALUES ($1, $2, $3)
             ON CONFLICT (url) DO UPDATE SET last_seq = topics.last_seq + EXCLUDED.last_seq RETURNING id, last_seq`,
      values: [url, counts.get(url)!, batch[0]!.receivedAt],
    });
    ends.set(url, { id: r.rows[0]!.id, lastSeq: r.rows[0]!.last_seq });
  }
  const next = new Map([...ends].map(([url, e]) => [url, e.lastSeq - counts.get(url)! + 1]));
  const results = batch.map((n) => {
    const seq = next.get(n.topicUrl)!;
    next.set(n.topicUrl, seq + 1);
    return { topicId: ends.get(n.topicUrl)!.id, seq };
  });
  // Small bodies go in one statement per batch. The driver writes an array parameter as a text
  // literal (a bytea as its hex escape), which for a 16 MiB body held the event loop for ~100 ms.
  // A larger body is stored in parts: the driver copies each statement's parameters into one message
  // on the event loop (a 16 MiB Buffer, sent as binary bytes, still held it for 50-85 ms), and
  // awaiting each part's statement gives the loop a turn between parts.
  const small = batch.flatMap((n, i) => (n.body.length <= INLINE_BODY_BYTES ? [i] : []));
  if (small.length > 0) {
    await client.query({
      name: 'rsn_insert_notifications',
      text: `INSERT INTO notifications (topic_id, seq, received_at, content_type, link_header, body)
           SELECT * FROM unnest($1::int[], $2::int[], $3::bigint[], $4::text[], $5::text[], $6::bytea[])`,
      values: [
        small.map((i) => results[i]!.topicId),
        small.map((i) => results[i]!.seq),
        small.map((i) => batch[i]!.receivedAt),
        small.map((i) => batch[i]!.contentType),
        small.map((i) => batch[i]!.linkHeader),
        small.map((i) => batch[i]!.body),
      ],
    });
  }
  for (let i = 0; i < batch.length; i++) {
    const n = batch[i]!;
    if (n.body.length > INLINE_BODY_BYTES) await insertInParts(client, n, results[i]!);
  }
  for (const end of ends.values()) {
    await client.query({
      name: 'rsn_notify',
      text: 'SELECT pg_notify($1, $2)',
      values: [HUB_CHANNEL, encodeEvent({ kind: 'published', topicId: end.id, seq: end.lastSeq })],
    });
  }
  return results;
}

/** Group commit of publishes: one transaction per batch, one batch at a time. */
export class PgAppendQueue {
  private pending: Pending[] = [];
  private appending = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly call: <T>(fn: () => Promise<T>) => Promise<T>,
  ) {}

  submit(n: NewNotification): Promise<Appended> {
    return new Promise((resolve, reject) => {
      this.pending.push({ n, resolve, reject });
      if (!this.appending && this.pending.length === 1) setImmediate(() => void this.flush());
    });
  }

  /** Resolves once everything submitted so far is committed (or failed). */
  async drain(): Promise<void> {
    while (this.appending || this.pending.length > 0) {
      if (!this.appending) void this.flush();
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /** Arrival order is seq order per topic. */
  private async flush(): Promise<void> {
    if (this.appending) return;
    this.appending = true;
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, 256);
        try {
          const results = await this.appendBatch(batch.map((b) => b.n));
          for (let i = 0; i < batch.length; i++) batch[i]!.resolve(results[i]!);
        } catch (err) {
          if (
            batch.length === 1 ||
            (err instanceof StoreError && err.code === 'RSN_STORE_UNAVAILABLE')
          ) {
            for (const b of batch) b.reject(err);
            continue;
          }
          // One bad row must not fail its neighbours: retry them one transaction each.
          for (const b of batch) {
            try {
              b.resolve((await this.appendBatch([b.n]))[0]!);
            } catch (e) {
              b.reject(e);
            }
          }
        }
      }
    } finally {
      this.appending = false;
    }
  }

  private appendBatch(batch: readonly NewNotification[]): Promise<Appended[]> {
    return this.call(() =>
      inClientTransaction(this.pool, (client) => appendInTransaction(client, batch)),
    );
  }
}
