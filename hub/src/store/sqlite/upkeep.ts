// Bookkeeping in the SQLite engine: pruning delivered notifications (M-5), lease expiry and the
// counts the metrics read.
import { setImmediate as nextTurnOfLoop } from 'node:timers/promises';
import type { SqliteBodyParts } from '@rsnotify/service-kit';
import { inArray, lte } from 'drizzle-orm';
import * as schema from '../schema.js';
import type { Subscription, SubscriptionCounts } from '../repository.js';
import { toSubscription } from '../rows.js';
import type { SqliteContext } from './context.js';
import { PERSIST_TOPIC_ENDS_SQL } from './topic-ends.js';

/**
 * Rows looked at per transaction while pruning, a turn of the event loop between transactions. In
 * one transaction with a correlated MIN per row, 200,000 rows of topics with 100 subscriptions held
 * the hub's thread for 2.8 s, and a prune with nothing to delete read every row kept (182 ms per
 * 200,000), every minute.
 */
export const PRUNE_ROWS_PER_TURN = 2_048;

// The oldest rows past the replay window after a point (age, then id: a row a cursor still holds
// is passed over, not read again by the next batch). Written as a row value, the range is one walk
// of the index in order; as an OR, SQLite gathered and sorted every remaining old row per batch.
export const PRUNE_CANDIDATES_SQL = `
  SELECT id, topic_id AS topicId, seq, received_at AS receivedAt, payload_id AS payloadId
    FROM notifications
   WHERE (received_at, id) > (?, ?) AND received_at < ?
   ORDER BY received_at, id
   LIMIT ?`;
// How far every cursor of a topic has gone: its lowest cursor, or its end when nobody subscribes
// (M-5: a notification is kept while any subscription still has it ahead).
const PASSED_BY_ALL_SQL = `
  SELECT COALESCE((SELECT MIN(delivered_seq) FROM subscriptions WHERE topic_id = t.id), t.last_seq)
    FROM topics t WHERE t.id = ?`;
const DELETE_BY_IDS_SQL = 'DELETE FROM notifications WHERE id IN (SELECT value FROM json_each(?))';

interface PruneCandidate {
  readonly id: number;
  readonly topicId: number;
  readonly seq: number;
  readonly receivedAt: number;
  readonly payloadId: number | null;
}

export async function pruneNotifications(
  ctx: SqliteContext,
  receivedBefore: number,
  payloads: SqliteBodyParts,
): Promise<number> {
  const candidates = ctx.sqlite.prepare(PRUNE_CANDIDATES_SQL);
  const passedByAll = ctx.sqlite.prepare(PASSED_BY_ALL_SQL).pluck();
  const persistEnds = ctx.sqlite.prepare(PERSIST_TOPIC_ENDS_SQL);
  const deleteByIds = ctx.sqlite.prepare(DELETE_BY_IDS_SQL);
  let pruned = 0;
  let after = { receivedAt: -1, id: 0 };
  for (;;) {
    const batch = ctx.sqlite.transaction(() => {
      // The notifications are where a topic's end is read from (topic-ends.ts): it goes into
      // topics.last_seq before any of them is deleted, so seqs never start over. Again in every
      // transaction: a publish committed between two of them may be the newest row of its topic.
      persistEnds.run();
      const rows = candidates.all(
        after.receivedAt,
        after.id,
        receivedBefore,
        PRUNE_ROWS_PER_TURN,
      ) as PruneCandidate[];
      const upTo = new Map<number, number>();
      const gone = rows.filter((r) => {
        let passed = upTo.get(r.topicId);
        if (passed === undefined) {
          passed = (passedByAll.get(r.topicId) as number | null) ?? 0;
          upTo.set(r.topicId, passed);
        }
        return r.seq <= passed;
      });
      if (gone.length > 0) deleteByIds.run(JSON.stringify(gone.map((r) => r.id)));
      // Their parts go with them.
      payloads.dropPayloads(gone.map((r) => r.payloadId));
      return { looked: rows.length, last: rows.at(-1), deleted: gone.length };
    })();
    pruned += batch.deleted;
    if (batch.looked < PRUNE_ROWS_PER_TURN || !batch.last) break;
    after = batch.last;
    await nextTurnOfLoop();
  }
  // And parts of publishes that never committed.
  payloads.dropStrays(receivedBefore);
  return pruned;
}

export async function removeExpiredSubscriptions(
  ctx: SqliteContext,
  now: number,
): Promise<Subscription[]> {
  const rows = ctx.db
    .delete(schema.subscriptions)
    .where(lte(schema.subscriptions.leaseExpiresAt, now))
    .returning()
    .all();
  if (rows.length === 0) return [];
  const urls = new Map(
    ctx.db
      .select({ id: schema.topics.id, url: schema.topics.url })
      .from(schema.topics)
      .where(inArray(schema.topics.id, [...new Set(rows.map((r) => r.topicId))]))
      .all()
      .map((t) => [t.id, t.url]),
  );
  return rows.map((r) => toSubscription(r, urls.get(r.topicId) ?? ''));
}

export async function countSubscriptions(
  ctx: SqliteContext,
  now: number,
): Promise<SubscriptionCounts> {
  const row = ctx.sqlite
    .prepare(
      `SELECT
      (SELECT COUNT(*) FROM subscriptions WHERE lease_expires_at > ?) AS active,
      (SELECT COUNT(*) FROM subscriptions WHERE lease_expires_at <= ?) AS expired,
      (SELECT COUNT(*) FROM intents) AS pending`,
    )
    .get(now, now) as SubscriptionCounts;
  return row;
}

export async function countGivenUp(ctx: SqliteContext): Promise<number> {
  return (ctx.sqlite.prepare('SELECT COUNT(*) AS n FROM given_up').get() as { n: number }).n;
}
