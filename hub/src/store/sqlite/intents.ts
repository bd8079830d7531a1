// Pending verification intents in the SQLite engine.
import { and, asc, eq, lte, sql } from 'drizzle-orm';
import * as schema from '../schema.js';
import type { Intent, NewIntent } from '../repository.js';
import { toIntent } from '../rows.js';
import type { SqliteContext } from './context.js';

export async function addIntent(ctx: SqliteContext, i: NewIntent): Promise<Intent> {
  return ctx.sqlite.transaction(() => {
    ctx.db
      .delete(schema.intents)
      .where(and(eq(schema.intents.topicUrl, i.topicUrl), eq(schema.intents.callback, i.callback)))
      .run();
    const row = ctx.db
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
      .returning()
      .get();
    return toIntent(row);
  })();
}

export async function dueIntents(
  ctx: SqliteContext,
  now: number,
  limit: number,
): Promise<Intent[]> {
  return ctx.db
    .select()
    .from(schema.intents)
    .where(lte(schema.intents.nextAttemptAt, now))
    .orderBy(asc(schema.intents.id))
    .limit(limit)
    .all()
    .map(toIntent);
}

export async function nextIntentDueAt(ctx: SqliteContext): Promise<number | undefined> {
  const row = ctx.db
    .select({ at: sql<number | null>`MIN(${schema.intents.nextAttemptAt})` })
    .from(schema.intents)
    .get();
  return row?.at ?? undefined;
}

export async function deleteIntent(ctx: SqliteContext, id: number): Promise<void> {
  ctx.db.delete(schema.intents).where(eq(schema.intents.id, id)).run();
}

export async function rescheduleIntent(
  ctx: SqliteContext,
  id: number,
  attempts: number,
  nextAttemptAt: number,
): Promise<void> {
  ctx.db
    .update(schema.intents)
    .set({ attempts, nextAttemptAt })
    .where(eq(schema.intents.id, id))
    .run();
}
