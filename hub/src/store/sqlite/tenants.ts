// Tenants (Sources, their topic and callback prefixes) in the SQLite engine.
import { asc, eq, inArray } from 'drizzle-orm';
import { StoreError } from '../errors.js';
import * as schema from '../schema.js';
import type { SourceRecord } from '../repository.js';
import type { SqliteContext } from './context.js';

export async function addSource(
  ctx: SqliteContext,
  s: {
    name: string;
    tokenHash: string;
    topicPrefixes: readonly string[];
    callbackPrefixes: readonly string[];
    now: number;
  },
): Promise<SourceRecord> {
  return ctx.sqlite.transaction(() => {
    const existing = ctx.db
      .select()
      .from(schema.sources)
      .where(eq(schema.sources.name, s.name))
      .get();
    if (existing)
      throw new StoreError(
        'RSN_SOURCE_EXISTS',
        `a Source named ${JSON.stringify(s.name)} exists already`,
        { details: { name: s.name } },
      );
    const taken =
      s.topicPrefixes.length === 0
        ? []
        : ctx.db
            .select()
            .from(schema.sourcePrefixes)
            .where(inArray(schema.sourcePrefixes.prefix, [...s.topicPrefixes]))
            .all();
    if (taken.length > 0) {
      throw new StoreError(
        'RSN_PREFIX_TAKEN',
        `topic prefix ${taken[0]!.prefix} belongs to another Source`,
        { details: { prefix: taken[0]!.prefix } },
      );
    }
    const row = ctx.db
      .insert(schema.sources)
      .values({ name: s.name, tokenHash: s.tokenHash, createdAt: s.now })
      .returning()
      .get();
    for (const prefix of new Set(s.topicPrefixes))
      ctx.db.insert(schema.sourcePrefixes).values({ sourceId: row.id, prefix }).run();
    for (const prefix of new Set(s.callbackPrefixes))
      ctx.db.insert(schema.sourceCallbackPrefixes).values({ sourceId: row.id, prefix }).run();
    return {
      id: row.id,
      name: row.name,
      tokenHash: row.tokenHash,
      topicPrefixes: [...new Set(s.topicPrefixes)],
      callbackPrefixes: [...new Set(s.callbackPrefixes)],
      createdAt: row.createdAt,
    };
  })();
}

export async function removeSource(ctx: SqliteContext, name: string): Promise<boolean> {
  const r = ctx.db.delete(schema.sources).where(eq(schema.sources.name, name)).run();
  return r.changes > 0;
}

export async function listSources(ctx: SqliteContext): Promise<SourceRecord[]> {
  const rows = ctx.db.select().from(schema.sources).orderBy(asc(schema.sources.name)).all();
  const prefixes = ctx.db.select().from(schema.sourcePrefixes).all();
  const callbacks = ctx.db.select().from(schema.sourceCallbackPrefixes).all();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    tokenHash: r.tokenHash,
    createdAt: r.createdAt,
    topicPrefixes: prefixes.filter((p) => p.sourceId === r.id).map((p) => p.prefix),
    callbackPrefixes: callbacks.filter((p) => p.sourceId === r.id).map((p) => p.prefix),
  }));
}
