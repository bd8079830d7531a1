// Tenants (Sources, their topic and callback prefixes) in the PostgreSQL engine. Two processes
// adding at once are decided by the unique indexes, with the same codes as the checks.
import { asc, eq, inArray } from 'drizzle-orm';
import { StoreError } from '../errors.js';
import * as schema from './schema.js';
import type { SourceRecord } from '../repository.js';
import type { PgContext } from './context.js';

export async function addSource(
  ctx: PgContext,
  s: {
    name: string;
    tokenHash: string;
    topicPrefixes: readonly string[];
    callbackPrefixes: readonly string[];
    now: number;
  },
): Promise<SourceRecord> {
  return ctx
    .tx(async (tx) => {
      const [existing] = await tx
        .select()
        .from(schema.sources)
        .where(eq(schema.sources.name, s.name));
      if (existing)
        throw new StoreError(
          'RSN_SOURCE_EXISTS',
          `a Source named ${JSON.stringify(s.name)} exists already`,
          { details: { name: s.name } },
        );
      const taken =
        s.topicPrefixes.length === 0
          ? []
          : await tx
              .select()
              .from(schema.sourcePrefixes)
              .where(inArray(schema.sourcePrefixes.prefix, [...s.topicPrefixes]));
      if (taken.length > 0) {
        throw new StoreError(
          'RSN_PREFIX_TAKEN',
          `topic prefix ${taken[0]!.prefix} belongs to another Source`,
          { details: { prefix: taken[0]!.prefix } },
        );
      }
      const [row] = await tx
        .insert(schema.sources)
        .values({ name: s.name, tokenHash: s.tokenHash, createdAt: s.now })
        .returning();
      const topicPrefixes = [...new Set(s.topicPrefixes)];
      const callbackPrefixes = [...new Set(s.callbackPrefixes)];
      if (topicPrefixes.length)
        await tx
          .insert(schema.sourcePrefixes)
          .values(topicPrefixes.map((prefix) => ({ sourceId: row!.id, prefix })));
      if (callbackPrefixes.length)
        await tx
          .insert(schema.sourceCallbackPrefixes)
          .values(callbackPrefixes.map((prefix) => ({ sourceId: row!.id, prefix })));
      await ctx.notify(tx, { kind: 'sources' });
      return {
        id: row!.id,
        name: row!.name,
        tokenHash: row!.tokenHash,
        topicPrefixes,
        callbackPrefixes,
        createdAt: row!.createdAt,
      };
    })
    .catch((err: unknown) => {
      // Two processes adding at once: the unique indexes decide, with the same codes as the check above.
      const c = err as { code?: string; constraint?: string };
      if (c.code === '23505' && c.constraint === 'sources_name_unique')
        throw new StoreError(
          'RSN_SOURCE_EXISTS',
          `a Source named ${JSON.stringify(s.name)} exists already`,
        );
      if (c.code === '23505' && c.constraint === 'source_prefixes_prefix_unique')
        throw new StoreError('RSN_PREFIX_TAKEN', 'a topic prefix belongs to another Source');
      throw err;
    });
}

export async function removeSource(ctx: PgContext, name: string): Promise<boolean> {
  return ctx.tx(async (tx) => {
    const rows = await tx
      .delete(schema.sources)
      .where(eq(schema.sources.name, name))
      .returning({ id: schema.sources.id });
    if (rows.length > 0) await ctx.notify(tx, { kind: 'sources' });
    return rows.length > 0;
  });
}

export async function listSources(ctx: PgContext): Promise<SourceRecord[]> {
  return ctx.call(async () => {
    const rows = await ctx.db.select().from(schema.sources).orderBy(asc(schema.sources.name));
    const prefixes = await ctx.db
      .select()
      .from(schema.sourcePrefixes)
      .orderBy(asc(schema.sourcePrefixes.id));
    const callbacks = await ctx.db
      .select()
      .from(schema.sourceCallbackPrefixes)
      .orderBy(asc(schema.sourceCallbackPrefixes.id));
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      tokenHash: r.tokenHash,
      createdAt: r.createdAt,
      topicPrefixes: prefixes.filter((p) => p.sourceId === r.id).map((p) => p.prefix),
      callbackPrefixes: callbacks.filter((p) => p.sourceId === r.id).map((p) => p.prefix),
    }));
  });
}
