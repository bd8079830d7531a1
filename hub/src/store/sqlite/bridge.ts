// The SQLite engine of the bridge store (bridge-repository.ts), on the hub's own connection so a
// poll's notifications and the position that produced them commit in one transaction.
import type Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { asc, eq } from 'drizzle-orm';
import * as schema from '../bridge-schema.js';
import type {
  BridgedSourceRecord,
  BridgePosition,
  BridgeRepository,
  NewBridgedSource,
} from '../bridge-repository.js';
import type { NewNotification } from '../repository.js';
import {
  bridgeExists,
  listRows,
  positionColumns,
  positionMoved,
  toBridgedSource,
} from '../bridge-records.js';
import type { TopicEnds } from './topic-ends.js';

type SourceRow = typeof schema.bridgeSources.$inferSelect;

export function createSqliteBridgeRepository(
  sqlite: Database.Database,
  /** Each topic's end, shared with the hub repository on this connection. */
  topicEnds: TopicEnds,
): BridgeRepository {
  const db: BetterSQLite3Database<typeof schema> = drizzle(sqlite, { schema });
  const topicByUrl = sqlite.prepare('SELECT id FROM topics WHERE url = ?').pluck();
  const insertTopic = sqlite
    .prepare('INSERT INTO topics (url, last_seq, created_at) VALUES (?, 0, ?) RETURNING id')
    .pluck();
  const insertNotification = sqlite.prepare(
    'INSERT INTO notifications (topic_id, seq, received_at, content_type, link_header, body) VALUES (?, ?, ?, ?, ?, ?)',
  );

  const read = (row: SourceRow | undefined): BridgedSourceRecord | undefined => {
    if (!row) return undefined;
    const lists = db
      .select()
      .from(schema.bridgeLists)
      .where(eq(schema.bridgeLists.bridgeSourceId, row.id))
      .orderBy(asc(schema.bridgeLists.ord))
      .all();
    return toBridgedSource(row, lists);
  };
  const byName = (name: string) =>
    read(db.select().from(schema.bridgeSources).where(eq(schema.bridgeSources.name, name)).get());

  const insert = (s: NewBridgedSource): BridgedSourceRecord => {
    const row = db
      .insert(schema.bridgeSources)
      .values({ name: s.name, pollUrl: s.pollUrl, intervalMs: s.intervalMs, createdAt: s.now })
      .returning()
      .get();
    return toBridgedSource(row, []);
  };

  const commit = sqlite.transaction(
    (
      id: number,
      generation: number,
      position: BridgePosition,
      notifications: readonly NewNotification[],
      now: number,
    ) => {
      const row = db
        .select({ generation: schema.bridgeSources.generation, name: schema.bridgeSources.name })
        .from(schema.bridgeSources)
        .where(eq(schema.bridgeSources.id, id))
        .get();
      if (!row) return [];
      if (row.generation !== generation) throw positionMoved(row.name, generation, row.generation);
      const topicIds = notifications.map(
        (n) =>
          (topicByUrl.get(n.topicUrl) as number | undefined) ??
          (insertTopic.get(n.topicUrl, n.receivedAt) as number),
      );
      const seqs = topicEnds.reserve(topicIds);
      const out = notifications.map((n, i) => {
        const topicId = topicIds[i]!;
        const seq = seqs[i]!;
        insertNotification.run(topicId, seq, n.receivedAt, n.contentType, n.linkHeader, n.body);
        return { topicId, seq };
      });
      db.update(schema.bridgeSources)
        .set({
          ...positionColumns(position),
          lastPollAt: now,
          lastError: null,
          generation: generation + 1,
        })
        .where(eq(schema.bridgeSources.id, id))
        .run();
      db.delete(schema.bridgeLists).where(eq(schema.bridgeLists.bridgeSourceId, id)).run();
      for (const l of listRows(id, position)) db.insert(schema.bridgeLists).values(l).run();
      return out;
    },
  );

  return {
    async addBridgedSource(s) {
      return sqlite.transaction(() => {
        if (byName(s.name)) throw bridgeExists(s.name);
        return insert(s);
      })();
    },
    async ensureBridgedSource(s) {
      return sqlite.transaction(() => {
        const existing = byName(s.name);
        if (!existing) return insert(s);
        if (existing.pollUrl !== s.pollUrl) {
          // Another Source under the same name: its lists say nothing about the new one.
          db.delete(schema.bridgeSources).where(eq(schema.bridgeSources.id, existing.id)).run();
          return insert(s);
        }
        if (existing.intervalMs !== s.intervalMs) {
          db.update(schema.bridgeSources)
            .set({ intervalMs: s.intervalMs })
            .where(eq(schema.bridgeSources.id, existing.id))
            .run();
          return { ...existing, intervalMs: s.intervalMs };
        }
        return existing;
      })();
    },
    async removeBridgedSource(name) {
      return (
        db.delete(schema.bridgeSources).where(eq(schema.bridgeSources.name, name)).run().changes > 0
      );
    },
    async listBridgedSources() {
      return db
        .select()
        .from(schema.bridgeSources)
        .orderBy(asc(schema.bridgeSources.name))
        .all()
        .map((r) => read(r)!);
    },
    async getBridgedSource(name) {
      return byName(name);
    },
    async commitPoll(id, poll) {
      return topicEnds.appending(() =>
        commit.immediate(id, poll.generation, poll.position, poll.notifications, poll.now),
      );
    },
    async recordPollOutcome(id, outcome) {
      db.update(schema.bridgeSources)
        .set({ lastPollAt: outcome.at, lastError: outcome.error?.slice(0, 500) ?? null })
        .where(eq(schema.bridgeSources.id, id))
        .run();
    },
  };
}
