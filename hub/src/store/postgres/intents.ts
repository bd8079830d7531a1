// Pending verification intents in the PostgreSQL engine; a new intent wakes the leader's
// verification worker through pg_notify.
import { and, asc, eq, lte, sql } from 'drizzle-orm';
import * as schema from './schema.js';
import type { Intent, NewIntent } from '../repository.js';
import { toIntent } from '../rows.js';
import type { PgContext } from './context.js';

export async function addIntent(ctx: PgContext, i: NewIntent): Promise<Intent> {
  return ctx.tx(async (tx) => {
    await tx
      .delete(schema.intents)
      .where(and(eq(schema.intents.topicUrl, i.topicUrl), eq(schema.intents.callback, i.callback)));
    const [row] = await tx
      .insert(schema.intents)
      .values({
        mode: i.mode,
        topicUrl: i.topicUrl,
        topicAsGiven: i.topicAsGiven,
        callback: i.callback,
        secret: i.secret ?? null,
        leaseSeconds: i.leaseSeconds ?? null,
        reason: i.reason ?? null,
        nextAttemptAt: i.nextAttemptAt,
        createdAt: i.createdAt,
      })
      .returning();
    await ctx.notify(tx, { kind: 'intent' });
    return toIntent(row!);
  });
}

export async function dueIntents(ctx: PgContext, now: number, limit: number): Promise<Intent[]> {
  return ctx.call(async () =>
    (
      await ctx.db
        .select()
        .from(schema.intents)
        .where(lte(schema.intents.nextAttemptAt, now))
        .orderBy(asc(schema.intents.id))
        .limit(limit)
    ).map(toIntent),
  );
}

export async function nextIntentDueAt(ctx: PgContext): Promise<number | undefined> {
  return ctx.call(async () => {
    const [row] = await ctx.db
      .select({ at: sql<string | number | null>`MIN(${schema.intents.nextAttemptAt})` })
      .from(schema.intents);
    return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
  });
}

export async function deleteIntent(ctx: PgContext, id: number): Promise<void> {
  await ctx.call(() => ctx.db.delete(schema.intents).where(eq(schema.intents.id, id)));
}

export async function rescheduleIntent(
  ctx: PgContext,
  id: number,
  attempts: number,
  nextAttemptAt: number,
): Promise<void> {
  await ctx.call(() =>
    ctx.db.update(schema.intents).set({ attempts, nextAttemptAt }).where(eq(schema.intents.id, id)),
  );
}
