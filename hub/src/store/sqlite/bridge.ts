// The SQLite engine of the bridge store (bridge-repository.ts), on the hub's own connection so a
// poll's notifications and the position that produced them commit in one transaction.
import type Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { asc, eq } from 'drizzle-orm';
import { RsnotifyError } from '@rsnotify/shared';
import * as schema from '../bridge-schema.js';
import type {
  BridgedSourceRecord,
  BridgeListState,
  BridgePosition,
  BridgeRepository,
  NewBridgedSource,
} from '../bridge-repository.js';
import type { NewNotification } from '../repository.js';

type SourceRow = typeof schema.bridgeSources.$inferSelect;
type ListRow = typeof schema.bridgeLists.$inferSelect;

const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

function toList(r: ListRow): BridgeListState {
  return {
    url: r.url,
    consumed: r.consumed,
    complete: r.complete,
    ...(r.listFrom !== null ? { from: r.listFrom } : {}),
    ...(r.listUntil !== null ? { until: r.listUntil } : {}),
    ...(r.lastKey !== null ? { lastKey: r.lastKey } : {}),
    ...(r.coveredTo !== null ? { coveredTo: r.coveredTo } : {}),
    ...(r.etag !== null ? { etag: r.etag } : {}),
    ...(r.lastModified !== null ? { lastModified: r.lastModified } : {}),
  };
}

function toRecord(r: SourceRow, lists: readonly ListRow[]): BridgedSourceRecord {
  const position: BridgePosition = {
    ...(r.capabilityListUrl !== null ? { capabilityListUrl: r.capabilityListUrl } : {}),
    ...(r.changeListUrl !== null ? { changeListUrl: r.changeListUrl } : {}),
    ...(r.discoveredAt !== null ? { discoveredAt: r.discoveredAt } : {}),
    ...(r.indexEtag !== null ? { indexEtag: r.indexEtag } : {}),
    ...(r.indexLastModified !== null ? { indexLastModified: r.indexLastModified } : {}),
    ...(r.coveredTo !== null ? { coveredTo: r.coveredTo } : {}),
    ...(r.chainFrom !== null ? { chainFrom: r.chainFrom } : {}),
    lists: lists.map(toList),
  };
  return {
    id: r.id,
    name: r.name,
    pollUrl: r.pollUrl,
    intervalMs: r.intervalMs,
    createdAt: r.createdAt,
    lastPollAt: opt(r.lastPollAt),
    lastError: opt(r.lastError),
    position,
  };
}

export function createSqliteBridgeRepository(sqlite: Database.Database): BridgeRepository {
  const db: BetterSQLite3Database<typeof schema> = drizzle(sqlite, { schema });
  const bumpTopic = sqlite
    .prepare('UPDATE topics SET last_seq = last_seq + 1 WHERE id = ? RETURNING last_seq')
    .pluck();
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
    return toRecord(row, lists);
  };
  const byName = (name: string) =>
    read(db.select().from(schema.bridgeSources).where(eq(schema.bridgeSources.name, name)).get());

  const savePosition = (id: number, p: BridgePosition): void => {
    db.update(schema.bridgeSources)
      .set({
        capabilityListUrl: p.capabilityListUrl ?? null,
        changeListUrl: p.changeListUrl ?? null,
        discoveredAt: p.discoveredAt ?? null,
        indexEtag: p.indexEtag ?? null,
        indexLastModified: p.indexLastModified ?? null,
        coveredTo: p.coveredTo ?? null,
        chainFrom: p.chainFrom ?? null,
      })
      .where(eq(schema.bridgeSources.id, id))
      .run();
    db.delete(schema.bridgeLists).where(eq(schema.bridgeLists.bridgeSourceId, id)).run();
    p.lists.forEach((l, ord) => {
      db.insert(schema.bridgeLists)
        .values({
          bridgeSourceId: id,
          url: l.url,
          ord,
          listFrom: l.from ?? null,
          listUntil: l.until ?? null,
          consumed: l.consumed,
          lastKey: l.lastKey ?? null,
          complete: l.complete,
          coveredTo: l.coveredTo ?? null,
          etag: l.etag ?? null,
          lastModified: l.lastModified ?? null,
        })
        .run();
    });
  };

  const insert = (s: NewBridgedSource): BridgedSourceRecord => {
    const row = db
      .insert(schema.bridgeSources)
      .values({ name: s.name, pollUrl: s.pollUrl, intervalMs: s.intervalMs, createdAt: s.now })
      .returning()
      .get();
    return toRecord(row, []);
  };

  const commitTx = sqlite.transaction(
    (
      id: number,
      position: BridgePosition,
      notifications: readonly NewNotification[],
      now: number,
    ) => {
      const out = notifications.map((n) => {
        const topicId =
          (topicByUrl.get(n.topicUrl) as number | undefined) ??
          (insertTopic.get(n.topicUrl, n.receivedAt) as number);
        const seq = bumpTopic.get(topicId) as number;
        insertNotification.run(topicId, seq, n.receivedAt, n.contentType, n.linkHeader, n.body);
        return { topicId, seq };
      });
      savePosition(id, position);
      db.update(schema.bridgeSources)
        .set({ lastPollAt: now, lastError: null })
        .where(eq(schema.bridgeSources.id, id))
        .run();
      return out;
    },
  );

  return {
    async addBridgedSource(s) {
      return sqlite.transaction(() => {
        if (byName(s.name)) {
          throw new RsnotifyError(
            'RSN_BRIDGE_EXISTS',
            `a bridged Source named ${JSON.stringify(s.name)} exists already`,
            { details: { name: s.name } },
          );
        }
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
    async commitPoll(id, position, notifications, now) {
      return commitTx(id, position, notifications, now);
    },
    async recordPollOutcome(id, outcome) {
      db.update(schema.bridgeSources)
        .set({ lastPollAt: outcome.at, lastError: outcome.error?.slice(0, 500) ?? null })
        .where(eq(schema.bridgeSources.id, id))
        .run();
    },
  };
}
