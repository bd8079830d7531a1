// The inbox: every delivery stored (durably, before the 2xx: WS-11) until ordering applied or
// superseded it; finished rows are pruned after a while.
import type Database from 'better-sqlite3';
import { and, eq, gt, gte, inArray, lt, lte, type SQL } from 'drizzle-orm';
import * as schema from '../schema.js';
import {
  OPEN_INBOX_STATES,
  type InboxRow,
  type InboxState,
  type NewInboxRow,
  type WriteOptions,
} from '../repository.js';
import { StoreQueries, clean } from './context.js';
import { updateSql } from './statements.js';

export class InboxQueries extends StoreQueries {
  private insertInboxStmt?: Database.Statement;

  insertInbox(row: NewInboxRow, onCommitted?: (id: number) => void): Promise<number> {
    this.insertInboxStmt ??= this.sqlite.prepare(
      'INSERT INTO inbox (source_id, subscription_id, received_at, content_type, body, signature, state) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const stmt = this.insertInboxStmt;
    return this.group.runDurable(
      () =>
        Number(
          stmt.run(
            row.sourceId,
            row.subscriptionId ?? null,
            row.receivedAt,
            row.contentType ?? null,
            row.body,
            row.signature,
            'new',
          ).lastInsertRowid,
        ),
      onCommitted,
    );
  }

  async getInbox(id: number): Promise<InboxRow | undefined> {
    const row = this.db.select().from(schema.inbox).where(eq(schema.inbox.id, id)).get();
    return row && toInbox(row);
  }

  async listOpenInbox(
    sourceId: number,
    page?: { readonly afterId: number; readonly limit: number },
  ): Promise<InboxRow[]> {
    return this.rowsInOrder(
      and(
        eq(schema.inbox.sourceId, sourceId),
        inArray(schema.inbox.state, [...OPEN_INBOX_STATES]),
        page ? gt(schema.inbox.id, page.afterId) : undefined,
      ),
      page?.limit,
    );
  }

  async listInboxRange(
    sourceId: number,
    fromId: number,
    toId: number,
    limit: number,
  ): Promise<InboxRow[]> {
    return this.rowsInOrder(
      and(
        eq(schema.inbox.sourceId, sourceId),
        gte(schema.inbox.id, fromId),
        lte(schema.inbox.id, toId),
      ),
      limit,
    );
  }

  /** Rows matching `where`, oldest first (at most `limit`; SQLite reads -1 as no limit). */
  private rowsInOrder(where: SQL | undefined, limit = -1): InboxRow[] {
    return this.db
      .select()
      .from(schema.inbox)
      .where(where)
      .orderBy(schema.inbox.id)
      .limit(limit)
      .all()
      .map(toInbox);
  }

  async updateInbox(
    id: number,
    patch: { state?: InboxState; from?: string; until?: string; error?: string },
    options?: WriteOptions,
  ): Promise<void> {
    // Like the query builder's set(): keys whose value is undefined are left alone.
    const keys = Object.keys(patch).filter((k) => patch[k as keyof typeof patch] !== undefined);
    if (keys.length === 0) return;
    const values = keys.map((k) => patch[k as keyof typeof patch]);
    await this.group.run(
      () =>
        this.statements
          .keyed(`inbox.update ${keys.join(',')}`, () =>
            updateSql(schema.inbox, 'inbox', keys, '"id" = ?'),
          )
          .run(...values, id),
      options,
    );
  }

  async setInboxState(ids: readonly number[], state: InboxState): Promise<void> {
    if (ids.length === 0) return;
    await this.group.run(() =>
      this.db
        .update(schema.inbox)
        .set({ state })
        .where(inArray(schema.inbox.id, [...ids]))
        .run(),
    );
  }

  async pruneInbox(sourceId: number, before: number): Promise<number> {
    const res = this.db
      .delete(schema.inbox)
      .where(
        and(
          eq(schema.inbox.sourceId, sourceId),
          inArray(schema.inbox.state, ['applied', 'superseded', 'invalid']),
          lt(schema.inbox.receivedAt, before),
        ),
      )
      .run();
    return res.changes;
  }
}

function toInbox(row: typeof schema.inbox.$inferSelect): InboxRow {
  return clean(row) as unknown as InboxRow;
}
