// Sources: the configured Sources, what discovery found for them, and the running totals and last
// events (`status`) that outlive the pruned history rows.
import { eq, sql } from 'drizzle-orm';
import * as schema from '../schema.js';
import type {
  GapRecord,
  ReconciliationRecord,
  SourceActivity,
  SourcePatch,
  SourceRecord,
} from '../repository.js';
import { StoreQueries, clean, nullify } from './context.js';

export class SourceQueries extends StoreQueries {
  async ensureSource(name: string, url: string): Promise<SourceRecord> {
    const existing = this.db
      .select()
      .from(schema.sources)
      .where(eq(schema.sources.name, name))
      .get();
    if (existing) {
      if (existing.url !== url) {
        // A new URL means new discovery: forget what the old one led to.
        this.db
          .update(schema.sources)
          .set({ url, mode: 'unknown', discoveredAt: null })
          .where(eq(schema.sources.id, existing.id))
          .run();
      }
      return toSource(
        this.db.select().from(schema.sources).where(eq(schema.sources.id, existing.id)).get()!,
      );
    }
    return toSource(this.db.insert(schema.sources).values({ name, url }).returning().get());
  }

  async getSource(name: string): Promise<SourceRecord | undefined> {
    const row = this.db.select().from(schema.sources).where(eq(schema.sources.name, name)).get();
    return row && toSource(row);
  }

  async listSources(): Promise<SourceRecord[]> {
    return this.db.select().from(schema.sources).orderBy(schema.sources.name).all().map(toSource);
  }

  async updateSource(id: number, patch: SourcePatch): Promise<void> {
    this.db.update(schema.sources).set(nullify(patch)).where(eq(schema.sources.id, id)).run();
  }

  async countIgnoredDelivery(sourceId: number): Promise<void> {
    this.db
      .update(schema.sources)
      .set({ ignoredDeliveries: sql`${schema.sources.ignoredDeliveries} + 1` })
      .where(eq(schema.sources.id, sourceId))
      .run();
  }

  async recordGap(sourceId: number, gap: GapRecord): Promise<void> {
    await this.group.run(() =>
      this.db
        .update(schema.sources)
        .set({
          gapCount: sql`${schema.sources.gapCount} + 1`,
          lastGapFrom: gap.from,
          lastGapTo: gap.to,
          lastGapAt: gap.detectedAt,
        })
        .where(eq(schema.sources.id, sourceId))
        .run(),
    );
  }

  async recordReconciliation(sourceId: number, rec: ReconciliationRecord): Promise<void> {
    await this.group.run(() =>
      this.db
        .update(schema.sources)
        .set({ lastReconciliation: JSON.stringify(rec) })
        .where(eq(schema.sources.id, sourceId))
        .run(),
    );
  }

  async activity(sourceId: number): Promise<SourceActivity> {
    const row = this.db
      .select({
        gaps: schema.sources.gapCount,
        from: schema.sources.lastGapFrom,
        to: schema.sources.lastGapTo,
        at: schema.sources.lastGapAt,
        reconciliation: schema.sources.lastReconciliation,
      })
      .from(schema.sources)
      .where(eq(schema.sources.id, sourceId))
      .get();
    if (!row) return { gaps: 0 };
    return {
      gaps: row.gaps,
      ...(row.from !== null && row.to !== null && row.at !== null
        ? { lastGap: { from: row.from, to: row.to, detectedAt: row.at } }
        : {}),
      ...(row.reconciliation !== null
        ? { lastReconciliation: JSON.parse(row.reconciliation) as ReconciliationRecord }
        : {}),
    };
  }
}

/** The record without the columns other methods own (running totals, last gap/reconciliation). */
function toSource(row: typeof schema.sources.$inferSelect): SourceRecord {
  const {
    changesApplied: _a,
    changesFailed: _f,
    catchUpCount: _c,
    gapCount: _g,
    lastGapFrom: _gf,
    lastGapTo: _gt,
    lastGapAt: _ga,
    lastReconciliation: _r,
    ...rest
  } = row;
  return {
    ...clean(rest),
    mode: row.mode as SourceRecord['mode'],
    subscriptionDisabled: row.subscriptionDisabled,
    ignoredDeliveries: row.ignoredDeliveries,
  } as SourceRecord;
}
