// Subscriptions (WS-4..WS-9): one row per subscribe request; the callback token is the lookup key
// of every delivery, so that lookup is a raw prepared statement.
import type Database from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import * as schema from '../schema.js';
import type { NewSubscription, SubscriptionPatch, SubscriptionRecord } from '../repository.js';
import { StoreQueries, clean, nullify } from './context.js';

export class SubscriptionQueries extends StoreQueries {
  async insertSubscription(sub: NewSubscription): Promise<SubscriptionRecord> {
    // Committed before the subscribe POST is sent (WS-7): the verification may beat the 202.
    const row = this.db
      .insert(schema.subscriptions)
      .values({
        ...nullify(sub),
        updatedAt: sub.requestedAt,
      } as typeof schema.subscriptions.$inferInsert)
      .returning()
      .get();
    return toSubscription(row);
  }

  async updateSubscription(
    id: number,
    patch: SubscriptionPatch,
  ): Promise<SubscriptionRecord | undefined> {
    const row = this.db
      .update(schema.subscriptions)
      .set({ ...nullify(patch), updatedAt: patch.updatedAt ?? Date.now() })
      .where(eq(schema.subscriptions.id, id))
      .returning()
      .get();
    return row && toSubscription(row);
  }

  private readonly byToken = () =>
    this.sqlite.prepare('SELECT * FROM subscriptions WHERE callback_token = ?');
  private byTokenStmt?: Database.Statement;

  async findSubscriptionByToken(token: string): Promise<SubscriptionRecord | undefined> {
    // Hot path (every delivery): a raw prepared statement, no query building.
    this.byTokenStmt ??= this.byToken();
    const row = this.byTokenStmt.get(token) as Record<string, unknown> | undefined;
    if (!row) return undefined;
    return toSubscription({
      id: row.id as number,
      sourceId: row.source_id as number,
      hub: row.hub as string,
      topic: row.topic as string,
      callbackToken: row.callback_token as string,
      callbackUrl: row.callback_url as string,
      secret: row.secret as string | null,
      state: row.state as string,
      requestedLeaseSeconds: row.requested_lease_seconds as number | null,
      leaseSeconds: row.lease_seconds as number | null,
      requestedAt: row.requested_at as number,
      verifiedAt: row.verified_at as number | null,
      leaseExpiresAt: row.lease_expires_at as number | null,
      renewAt: row.renew_at as number | null,
      renewsId: row.renews_id as number | null,
      attempt: row.attempt as number,
      lastError: row.last_error as string | null,
      deniedReason: row.denied_reason as string | null,
      updatedAt: row.updated_at as number,
    });
  }

  async listSubscriptions(sourceId: number): Promise<SubscriptionRecord[]> {
    return this.db
      .select()
      .from(schema.subscriptions)
      .where(eq(schema.subscriptions.sourceId, sourceId))
      .orderBy(schema.subscriptions.id)
      .all()
      .map(toSubscription);
  }
}

function toSubscription(row: typeof schema.subscriptions.$inferSelect): SubscriptionRecord {
  return clean(row) as unknown as SubscriptionRecord;
}
