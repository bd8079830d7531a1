// Bookkeeping in the SQLite engine: pruning delivered notifications (M-5), lease expiry and the
// counts the metrics read.
import type { SqliteBodyParts } from '@rsnotify/service-kit';
import { inArray, lte } from 'drizzle-orm';
import * as schema from '../schema.js';
import type { Subscription, SubscriptionCounts } from '../repository.js';
import { toSubscription } from '../rows.js';
import type { SqliteContext } from './context.js';
import { PERSIST_TOPIC_ENDS_SQL } from './topic-ends.js';

export async function pruneNotifications(
  ctx: SqliteContext,
  receivedBefore: number,
  payloads: SqliteBodyParts,
): Promise<number> {
  // A notification is kept while any subscription of its topic still has it ahead of its cursor (M-5).
  return ctx.sqlite.transaction(() => {
    // The notifications are where a topic's end is read from (topic-ends.ts): it goes into
    // topics.last_seq before any of them is deleted, so seqs never start over.
    ctx.sqlite.prepare(PERSIST_TOPIC_ENDS_SQL).run();
    const pruned = ctx.sqlite
      .prepare(
        `
    DELETE FROM notifications
     WHERE received_at < ?
       AND seq <= COALESCE((SELECT MIN(s.delivered_seq) FROM subscriptions s WHERE s.topic_id = notifications.topic_id),
                           (SELECT t.last_seq FROM topics t WHERE t.id = notifications.topic_id))
    RETURNING payload_id`,
      )
      .pluck()
      .all(receivedBefore) as (number | null)[];
    // Their parts go with them, and parts of publishes that never committed.
    payloads.dropParts(pruned, receivedBefore);
    return pruned.length;
  })();
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
