// The PostgreSQL engine of the bridge store (../bridge-repository.ts). commitPoll is one
// transaction: the bridged Source's row is locked and its generation checked (a poll read from a
// position another process has since committed past stores nothing), the notifications take their
// topic's next seqs exactly as publishes do (UPDATE ... RETURNING on the topic row), the position
// is saved, and every process that delivers the topic is woken by pg_notify when it commits.
import type pg from 'pg';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { asc, eq, inArray, sql } from 'drizzle-orm';
import * as schema from './bridge-schema.js';
import type {
  BridgedSourceRecord,
  BridgeRepository,
  NewBridgedSource,
} from '../bridge-repository.js';
import {
  bridgeExists,
  listRows,
  positionColumns,
  positionMoved,
  toBridgedSource,
} from '../bridge-records.js';
import { HUB_CHANNEL, encodeEvent } from './events.js';
import { appendInTransaction } from './appends.js';
import { inClientTransaction } from './context.js';

type Db = NodePgDatabase<typeof schema>;
type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
type SourceRow = typeof schema.bridgeSources.$inferSelect;

export function createPostgresBridgeRepository(
  pool: pg.Pool,
  call: <T>(fn: () => Promise<T>) => Promise<T>,
): BridgeRepository {
  const db: Db = drizzle(pool, { schema });
  const tx = <T>(fn: (t: Tx) => Promise<T>) => call(() => db.transaction(fn));
  // Another process's bridge (the leader's) must hear of a Source added or removed here.
  const announce = (t: Tx) =>
    t.execute(sql`SELECT pg_notify(${HUB_CHANNEL}, ${encodeEvent({ kind: 'sources' })})`);

  const readMany = async (
    q: Pick<Db, 'select'>,
    rows: SourceRow[],
  ): Promise<BridgedSourceRecord[]> => {
    if (rows.length === 0) return [];
    const lists = await q
      .select()
      .from(schema.bridgeLists)
      .where(
        inArray(
          schema.bridgeLists.bridgeSourceId,
          rows.map((r) => r.id),
        ),
      )
      .orderBy(asc(schema.bridgeLists.ord));
    return rows.map((r) =>
      toBridgedSource(
        r,
        lists.filter((l) => l.bridgeSourceId === r.id),
      ),
    );
  };
  const byName = async (q: Pick<Db, 'select'>, name: string) =>
    (
      await readMany(
        q,
        await q.select().from(schema.bridgeSources).where(eq(schema.bridgeSources.name, name)),
      )
    )[0];
  const insert = async (t: Tx, s: NewBridgedSource) => {
    const [row] = await t
      .insert(schema.bridgeSources)
      .values({ name: s.name, pollUrl: s.pollUrl, intervalMs: s.intervalMs, createdAt: s.now })
      .returning();
    await announce(t);
    return toBridgedSource(row!, []);
  };
  const uniqueName = (name: string) => (err: unknown) => {
    const c = err as { code?: string; constraint?: string };
    if (c.code === '23505' && c.constraint === 'bridge_sources_name_unique')
      throw bridgeExists(name);
    throw err;
  };

  return {
    addBridgedSource(s) {
      return tx(async (t) => {
        if (await byName(t, s.name)) throw bridgeExists(s.name);
        return insert(t, s);
      }).catch(uniqueName(s.name));
    },
    ensureBridgedSource(s) {
      return tx(async (t) => {
        const existing = await byName(t, s.name);
        if (!existing) return insert(t, s);
        if (existing.pollUrl !== s.pollUrl) {
          // Another Source under the same name: its lists say nothing about the new one.
          await t.delete(schema.bridgeSources).where(eq(schema.bridgeSources.id, existing.id));
          return insert(t, s);
        }
        if (existing.intervalMs !== s.intervalMs) {
          await t
            .update(schema.bridgeSources)
            .set({ intervalMs: s.intervalMs })
            .where(eq(schema.bridgeSources.id, existing.id));
          await announce(t);
          return { ...existing, intervalMs: s.intervalMs };
        }
        return existing;
      }).catch(uniqueName(s.name));
    },
    removeBridgedSource(name) {
      return tx(async (t) => {
        const rows = await t
          .delete(schema.bridgeSources)
          .where(eq(schema.bridgeSources.name, name))
          .returning({ id: schema.bridgeSources.id });
        if (rows.length > 0) await announce(t);
        return rows.length > 0;
      });
    },
    listBridgedSources() {
      return call(async () =>
        readMany(
          db,
          await db.select().from(schema.bridgeSources).orderBy(asc(schema.bridgeSources.name)),
        ),
      );
    },
    getBridgedSource(name) {
      return call(() => byName(db, name));
    },
    commitPoll(id, poll) {
      return call(() =>
        inClientTransaction(pool, async (client) => {
          const cur = await client.query<{ name: string; generation: number }>(
            'SELECT name, generation FROM bridge_sources WHERE id = $1 FOR UPDATE',
            [id],
          );
          const row = cur.rows[0];
          // Removed meanwhile: nothing to publish for it any more (the transaction wrote nothing).
          if (!row) return [];
          if (row.generation !== poll.generation)
            throw positionMoved(row.name, poll.generation, row.generation);
          const out = await appendInTransaction(client, poll.notifications);
          const p = positionColumns(poll.position);
          await client.query(
            `UPDATE bridge_sources SET capability_list_url = $2, change_list_url = $3, discovered_at = $4,
               index_etag = $5, index_last_modified = $6, covered_to = $7, chain_from = $8,
               last_poll_at = $9, last_error = NULL, generation = generation + 1 WHERE id = $1`,
            [
              id,
              p.capabilityListUrl,
              p.changeListUrl,
              p.discoveredAt,
              p.indexEtag,
              p.indexLastModified,
              p.coveredTo,
              p.chainFrom,
              poll.now,
            ],
          );
          await client.query('DELETE FROM bridge_lists WHERE bridge_source_id = $1', [id]);
          const lists = listRows(id, poll.position);
          if (lists.length > 0)
            await client.query(
              `INSERT INTO bridge_lists (bridge_source_id, url, ord, list_from, list_until, consumed, last_key, complete, covered_to, etag, last_modified)
               SELECT $1, * FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::int[], $7::text[], $8::bool[], $9::text[], $10::text[], $11::text[])`,
              [
                id,
                lists.map((l) => l.url),
                lists.map((l) => l.ord),
                lists.map((l) => l.listFrom),
                lists.map((l) => l.listUntil),
                lists.map((l) => l.consumed),
                lists.map((l) => l.lastKey),
                lists.map((l) => l.complete),
                lists.map((l) => l.coveredTo),
                lists.map((l) => l.etag),
                lists.map((l) => l.lastModified),
              ],
            );
          return out;
        }),
      );
    },
    async recordPollOutcome(id, outcome) {
      await call(() =>
        db
          .update(schema.bridgeSources)
          .set({ lastPollAt: outcome.at, lastError: outcome.error?.slice(0, 500) ?? null })
          .where(eq(schema.bridgeSources.id, id)),
      );
    },
  };
}
