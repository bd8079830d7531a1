// The inbox: every delivery stored (durably, before the 2xx: WS-11) until ordering applied or
// superseded it; finished rows are pruned after a while. A body over one part (512 KiB) is staged
// in inbox_parts before its row (service-kit's SqliteBodyParts), so that neither the row's insert
// nor the later updates of its state write up to 10 MiB in one statement (a 9.5 MiB body: 70-140
// ms for the insert, ~80 for each update, which rewrites the row whole).
import type Database from 'better-sqlite3';
import { and, eq, gt, gte, inArray, lt, lte, type SQL } from 'drizzle-orm';
import { SqliteBodyParts } from '@rsnotify/service-kit';
import { StoreError } from '../../errors/index.js';
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

const EMPTY = Buffer.alloc(0);

export class InboxQueries extends StoreQueries {
  private insertInboxStmt?: Database.Statement;
  private partsStore?: SqliteBodyParts;

  private get parts(): SqliteBodyParts {
    this.partsStore ??= new SqliteBodyParts(
      this.sqlite,
      { parts: 'inbox_parts', rows: 'inbox' },
      () => new StoreError('RSN_STORE_CLOSED', 'store closed'),
    );
    return this.partsStore;
  }

  insertInbox(row: NewInboxRow, onCommitted?: (id: number) => void): Promise<number> {
    if (!SqliteBodyParts.needsParts(row.body)) return this.insertRow(row, null, onCommitted);
    // Staged first: the durable commit of the row (and its sync) covers the parts before it.
    return this.parts
      .stage(row.body, row.receivedAt)
      .then((payloadId) => this.insertRow(row, payloadId, onCommitted));
  }

  private insertRow(
    row: NewInboxRow,
    payloadId: number | null,
    onCommitted?: (id: number) => void,
  ): Promise<number> {
    this.insertInboxStmt ??= this.sqlite.prepare(
      'INSERT INTO inbox (source_id, subscription_id, received_at, content_type, body, payload_id, signature, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
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
            payloadId === null ? row.body : EMPTY,
            payloadId,
            row.signature,
            'new',
          ).lastInsertRowid,
        ),
      onCommitted,
    );
  }

  async getInbox(id: number): Promise<InboxRow | undefined> {
    const row = this.db.select().from(schema.inbox).where(eq(schema.inbox.id, id)).get();
    return row && this.toInbox(row);
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
  private async rowsInOrder(where: SQL | undefined, limit = -1): Promise<InboxRow[]> {
    const rows = this.db
      .select()
      .from(schema.inbox)
      .where(where)
      .orderBy(schema.inbox.id)
      .limit(limit)
      .all();
    const out: InboxRow[] = [];
    for (const row of rows) out.push(await this.toInbox(row));
    return out;
  }

  /** The record of a row, its body read from its parts when it has them. */
  private async toInbox(row: typeof schema.inbox.$inferSelect): Promise<InboxRow> {
    const { payloadId, ...rest } = row;
    const record = clean(rest) as unknown as InboxRow;
    return payloadId === null ? record : { ...record, body: await this.parts.read(payloadId) };
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
    return this.sqlite.transaction(() => {
      const pruned = this.db
        .delete(schema.inbox)
        .where(
          and(
            eq(schema.inbox.sourceId, sourceId),
            inArray(schema.inbox.state, ['applied', 'superseded', 'invalid']),
            lt(schema.inbox.receivedAt, before),
          ),
        )
        .returning({ payloadId: schema.inbox.payloadId })
        .all();
      // Their parts go with them, and parts of deliveries whose row never committed.
      this.parts.dropParts(
        pruned.map((r) => r.payloadId),
        before,
      );
      return pruned.length;
    })();
  }
}
