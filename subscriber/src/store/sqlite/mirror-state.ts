// The mirror's state: the position (syncedUntil, promise 3) and one row per mirrored resource
// (the mirror's ResourceStateStore sits on these).
import type Database from 'better-sqlite3';
import { and, eq } from 'drizzle-orm';
import * as schema from '../schema.js';
import type { PositionRecord, ResourceRecord, WriteOptions } from '../repository.js';
import { StoreQueries, clean, nullify } from './context.js';
import { upsertSql } from './statements.js';

const RESOURCE_UPSERT = upsertSql(
  schema.resources,
  'resources',
  ['sourceId', 'uri', 'path', 'sha256', 'length', 'lastChangeKey', 'updatedAt'],
  ['sourceId', 'uri'],
);

export class MirrorStateQueries extends StoreQueries {
  // ---- position
  async getPosition(sourceId: number): Promise<PositionRecord | undefined> {
    const row = this.db
      .select()
      .from(schema.position)
      .where(eq(schema.position.sourceId, sourceId))
      .get();
    if (!row) return undefined;
    const { updatedAt: _u, ...rest } = clean(row);
    return rest as PositionRecord;
  }

  async savePosition(
    sourceId: number,
    patch: Omit<PositionRecord, 'sourceId'>,
    options?: WriteOptions,
  ): Promise<void> {
    const values: Record<string, unknown> = { sourceId, ...nullify(patch), updatedAt: Date.now() };
    const keys = Object.keys(values);
    const args = keys.map((k) => values[k]);
    await this.group.run(
      () =>
        this.statements
          .keyed(`position.upsert ${keys.join(',')}`, () =>
            upsertSql(schema.position, 'position', keys, ['sourceId']),
          )
          .run(...args),
      options,
    );
  }

  // ---- resources (the mirror's ResourceStateStore sits on these)
  private getResourceStmt?: Database.Statement;

  async getResource(sourceId: number, uri: string): Promise<ResourceRecord | undefined> {
    this.getResourceStmt ??= this.sqlite.prepare(
      'SELECT uri, path, sha256, length, last_change_key FROM resources WHERE source_id = ? AND uri = ?',
    );
    const row = this.getResourceStmt.get(sourceId, uri) as
      | {
          uri: string;
          path: string;
          sha256: string | null;
          length: number | null;
          last_change_key: string | null;
        }
      | undefined;
    if (!row) return undefined;
    return clean({
      uri: row.uri,
      path: row.path,
      sha256: row.sha256,
      length: row.length,
      lastChangeKey: row.last_change_key,
    }) as ResourceRecord;
  }

  async setResource(sourceId: number, uri: string, rec: ResourceRecord | null): Promise<void> {
    const now = Date.now();
    await this.group.run(() => {
      if (rec === null) {
        this.statements
          .get('DELETE FROM resources WHERE source_id = ? AND uri = ?')
          .run(sourceId, uri);
        return;
      }
      this.statements
        .get(RESOURCE_UPSERT)
        .run(
          sourceId,
          uri,
          rec.path,
          rec.sha256 ?? null,
          rec.length ?? null,
          rec.lastChangeKey ?? null,
          now,
        );
    });
  }

  async listResourceUris(sourceId: number): Promise<string[]> {
    return this.db
      .select({ uri: schema.resources.uri })
      .from(schema.resources)
      .where(eq(schema.resources.sourceId, sourceId))
      .all()
      .map((r) => r.uri);
  }

  async listResourcePaths(sourceId: number): Promise<{ uri: string; path: string }[]> {
    return this.db
      .select({ uri: schema.resources.uri, path: schema.resources.path })
      .from(schema.resources)
      .where(eq(schema.resources.sourceId, sourceId))
      .all();
  }

  async setResourcePath(sourceId: number, uri: string, path: string): Promise<void> {
    await this.group.run(() => {
      this.db
        .update(schema.resources)
        .set({ path })
        .where(and(eq(schema.resources.sourceId, sourceId), eq(schema.resources.uri, uri)))
        .run();
    });
  }
}
