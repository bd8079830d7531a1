// Appending notifications in the PostgreSQL engine. Publishes are group-committed per process (one
// transaction per event-loop turn, one batch at a time); the topic row is bumped with
// INSERT ... ON CONFLICT DO UPDATE ... RETURNING, whose row lock keeps per-topic sequence numbers
// gap-free and ordered under concurrent publishers in other processes (M-3). A batch of small
// bodies is one statement (bump, insert and pg_notify in one implicit transaction): the driver
// waits for each statement's answer before it sends the next, so BEGIN, a bump, an insert, a
// notify and COMMIT were five round trips to the server while the publishes waited. The bridge
// appends inside its own poll transaction (bridge.ts), as does a batch with a large body.
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
 * Where each notification of a batch goes: its topics in URL order (the order their rows are
 * locked in, so concurrent batches in other processes cannot deadlock), how many notifications each
 * gets, and per notification its topic (an index into `urls`) and its place among that topic's
 * notifications (1-based, in arrival order). Pure.
 */
export function appendPlan(batch: readonly Pick<NewNotification, 'topicUrl'>[]): {
  urls: string[];
  counts: number[];
  topicOf: number[];
  place: number[];
} {
  const counts = new Map<string, number>();
  for (const n of batch) counts.set(n.topicUrl, (counts.get(n.topicUrl) ?? 0) + 1);
  const urls = [...counts.keys()].sort();
  const index = new Map(urls.map((u, i) => [u, i]));
  const taken = urls.map(() => 0);
  const topicOf: number[] = [];
  const place: number[] = [];
  for (const n of batch) {
    const t = index.get(n.topicUrl)!;
    topicOf.push(t);
    place.push(++taken[t]!);
  }
  return { urls, counts: urls.map((u) => counts.get(u)!), topicOf, place };
}

/** (topicId, seq) per notification, from the topics' rows after the bump (in `plan.urls` order). */
function placed(
  plan: ReturnType<typeof appendPlan>,
  ends: readonly { id: number; lastSeq: number }[],
): Appended[] {
  return plan.topicOf.map((t, i) => ({
    topicId: ends[t]!.id,
    seq: ends[t]!.lastSeq - plan.counts[t]! + plan.place[i]!,
  }));
}

/** Whether a batch can go in one statement: every body small enough to be sent inline. */
export function fitsOneStatement(batch: readonly NewNotification[]): boolean {
  return batch.every((n) => n.body.length <= INLINE_BODY_BYTES);
}

/**
 * A batch of small bodies in one statement, its own implicit transaction: the topics bumped in URL
 * order, the rows inserted, and a pg_notify per topic that reaches the other processes only if the
 * statement commits. The payload is events.ts's 'published' event, built in SQL because the topic's
 * id and last seq are only known there. Returns (topicId, seq) in input order.
 */
export async function appendInOneStatement(
  pool: pg.Pool,
  batch: readonly NewNotification[],
): Promise<Appended[]> {
  if (batch.length === 0) return [];
  const plan = appendPlan(batch);
  const r = await pool.query<{ t: number; id: number; last_seq: number }>({
    name: 'rsn_append_batch',
    text: `WITH wanted AS (
             SELECT url, n, t FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS w(url, n, t)
           ), bumped AS (
             INSERT INTO topics (url, last_seq, created_at)
             SELECT url, n, $3::bigint FROM wanted ORDER BY t
             ON CONFLICT (url) DO UPDATE SET last_seq = topics.last_seq + EXCLUDED.last_seq
             RETURNING id, url, last_seq
           ), ends AS (
             SELECT w.t, b.id, b.last_seq, b.last_seq - w.n AS before FROM bumped b JOIN wanted w USING (url)
           ), inserted AS (
             INSERT INTO notifications (topic_id, seq, received_at, content_type, link_header, body)
             SELECT e.id, e.before + x.place, x.received_at, x.content_type, x.link_header, x.body
             FROM unnest($4::int[], $5::int[], $6::bigint[], $7::text[], $8::text[], $9::bytea[])
                  AS x(t, place, received_at, content_type, link_header, body)
             JOIN ends e USING (t)
           )
           SELECT t, id, last_seq, pg_notify($10, 'p:' || id || ':' || last_seq) FROM ends ORDER BY t`,
    values: [
      plan.urls,
      plan.counts,
      batch[0]!.receivedAt,
      plan.topicOf.map((t) => t + 1),
      plan.place,
      batch.map((n) => n.receivedAt),
      batch.map((n) => n.contentType),
      batch.map((n) => n.linkHeader),
      batch.map((n) => n.body),
      HUB_CHANNEL,
    ],
  });
  return placed(
    plan,
    r.rows.map((row) => ({ id: row.id, lastSeq: row.last_seq })),
  );
}

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
  const plan = appendPlan(batch);
  const ends: { id: number; lastSeq: number }[] = [];
  for (let t = 0; t < plan.urls.length; t++) {
    const r = await client.query<{ id: number; last_seq: number }>({
      name: 'rsn_bump_topic',
      text: `INSERT INTO topics (url, last_seq, created_at) VALUES ($1, $2, $3)
             ON CONFLICT (url) DO UPDATE SET last_seq = topics.last_seq + EXCLUDED.last_seq RETURNING id, last_seq`,
      values: [plan.urls[t], plan.counts[t], batch[0]!.receivedAt],
    });
    ends.push({ id: r.rows[0]!.id, lastSeq: r.rows[0]!.last_seq });
  }
  const results = placed(plan, ends);
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
  for (const end of ends) {
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
      fitsOneStatement(batch)
        ? appendInOneStatement(this.pool, batch)
        : inClientTransaction(this.pool, (client) => appendInTransaction(client, batch)),
    );
  }
}
