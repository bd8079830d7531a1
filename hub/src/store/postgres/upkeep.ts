// Delivery bookkeeping in the PostgreSQL engine: cursor batches (one statement, never backwards),
// given-up records, lease expiry and the counts the metrics read.
import { inArray, lte } from 'drizzle-orm';
import * as schema from './schema.js';
import type { CursorUpdate, Subscription, SubscriptionCounts } from '../repository.js';
import { toSubscription } from '../rows.js';
import { inClientTransaction, type PgContext } from './context.js';

export async function saveCursors(
  ctx: PgContext,
  updates: readonly CursorUpdate[],
  now: number,
): Promise<void> {
  if (updates.length === 0) return;
  await ctx.call(() =>
    inClientTransaction(ctx.pool, async (client) => {
      // One statement for the whole batch; a cursor never moves backwards (GREATEST).
      await client.query({
        name: 'rsn_save_cursors',
        text: `UPDATE subscriptions s SET delivered_seq = GREATEST(s.delivered_seq, u.delivered_seq), attempts = u.attempts,
                 next_attempt_at = u.next_attempt_at, first_failed_at = u.first_failed_at, last_status = u.last_status,
                 last_error = u.last_error, updated_at = $8
               FROM unnest($1::int[], $2::int[], $3::int[], $4::bigint[], $5::bigint[], $6::int[], $7::text[])
                 AS u(id, delivered_seq, attempts, next_attempt_at, first_failed_at, last_status, last_error)
               WHERE s.id = u.id`,
        values: [
          updates.map((u) => u.subscriptionId),
          updates.map((u) => u.deliveredSeq),
          updates.map((u) => u.attempts),
          updates.map((u) => u.nextAttemptAt),
          updates.map((u) => u.firstFailedAt ?? null),
          updates.map((u) => u.lastStatus ?? null),
          updates.map((u) => u.lastError ?? null),
          now,
        ],
      });
      const gaveUp = updates.filter((u) => u.givenUp);
      if (gaveUp.length > 0) {
        await client.query(
          `INSERT INTO given_up (subscription_id, topic_id, callback, seq, reason, at)
                            SELECT *, $6::bigint FROM unnest($1::int[], $2::int[], $3::text[], $4::int[], $5::text[])`,
          [
            gaveUp.map((u) => u.subscriptionId),
            gaveUp.map((u) => u.givenUp!.topicId),
            gaveUp.map((u) => u.givenUp!.callback),
            gaveUp.map((u) => u.givenUp!.seq),
            gaveUp.map((u) => u.givenUp!.reason),
            now,
          ],
        );
      }
    }),
  );
}

export async function removeExpiredSubscriptions(
  ctx: PgContext,
  now: number,
): Promise<Subscription[]> {
  return ctx.tx(async (tx) => {
    const rows = await tx
      .delete(schema.subscriptions)
      .where(lte(schema.subscriptions.leaseExpiresAt, now))
      .returning();
    if (rows.length === 0) return [];
    const urls = new Map(
      (
        await tx
          .select({ id: schema.topics.id, url: schema.topics.url })
          .from(schema.topics)
          .where(inArray(schema.topics.id, [...new Set(rows.map((r) => r.topicId))]))
      ).map((t) => [t.id, t.url]),
    );
    for (const r of rows) await ctx.notify(tx, { kind: 'removed', id: r.id });
    return rows.map((r) => toSubscription(r, urls.get(r.topicId) ?? ''));
  });
}

export async function countSubscriptions(ctx: PgContext, now: number): Promise<SubscriptionCounts> {
  return ctx.call(async () => {
    const r = await ctx.pool.query<{ active: number; expired: number; pending: number }>(
      `SELECT
        (SELECT COUNT(*) FROM subscriptions WHERE lease_expires_at > $1)::int AS active,
        (SELECT COUNT(*) FROM subscriptions WHERE lease_expires_at <= $1)::int AS expired,
        (SELECT COUNT(*) FROM intents)::int AS pending`,
      [now],
    );
    return r.rows[0]!;
  });
}

export async function countGivenUp(ctx: PgContext): Promise<number> {
  return ctx.call(
    async () =>
      (await ctx.pool.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM given_up')).rows[0]!.n,
  );
}
