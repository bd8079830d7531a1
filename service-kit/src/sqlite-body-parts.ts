// A large body stored in a SQLite table of parts (body-parts.ts says why), used by the hub's
// notifications and the subscriber's inbox. better-sqlite3 is synchronous: a 16 MiB body inserted
// as one row held the event loop for 120-280 ms (4,096 overflow pages written to the WAL in one
// statement), and SQLite rewrites a row whole when any of its columns changes. Here a body over
// PART_BYTES is staged as parts, one short autocommit statement per part with a turn of the event
// loop between them, under a fresh payload id; the row that names the id is written afterwards by
// the daemon's usual commit. Until that commit the parts belong to no row (readers read rows), so
// a crash mid-way loses nothing that was answered and leaves parts that the pruning of the rows
// sweeps (staging happens before the row, in the same WAL: the sync that makes the row durable
// covers its parts).
// The driver belongs to the daemon: the connection is typed as the members used here.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { concatInSlices } from './body-limit.js';
import { PART_BYTES, bodyParts, newPayloadId } from './body-parts.js';

/** A prepared statement, as far as the parts use it (better-sqlite3's Statement). */
interface PartStatement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
}

/** The connection, as far as the parts use it (a better-sqlite3 Database). */
export interface PartsConnection {
  readonly open: boolean;
  prepare(source: string): PartStatement;
}

/** Staged parts no row names after this long belong to a write that never committed. */
export const STAGING_GRACE_MS = 10 * 60_000;

/** The table of parts (payload_id, part, bytes, created_at) and the table of the rows naming them. */
export interface PartsTables {
  readonly parts: string;
  /** Its payload_id column names the parts of a row whose body is stored in parts. */
  readonly rows: string;
}

export class SqliteBodyParts {
  private readonly insertPart: PartStatement;
  private readonly selectPart: PartStatement;
  private readonly deleteParts: PartStatement;
  private readonly deleteStrays: PartStatement;

  /** `closedError` is what staging throws once the connection is closed (the daemon's store error). */
  constructor(
    private readonly sqlite: PartsConnection,
    tables: PartsTables,
    private readonly closedError: () => Error,
  ) {
    const { parts, rows } = tables;
    this.insertPart = sqlite.prepare(
      `INSERT INTO ${parts} (payload_id, part, bytes, created_at) VALUES (?, ?, ?, ?)`,
    );
    this.selectPart = sqlite.prepare(
      `SELECT bytes FROM ${parts} WHERE payload_id = ? AND part = ?`,
    );
    this.deleteParts = sqlite.prepare(`DELETE FROM ${parts} WHERE payload_id = ?`);
    this.deleteStrays = sqlite.prepare(
      `DELETE FROM ${parts} WHERE created_at < ?
         AND payload_id NOT IN (SELECT payload_id FROM ${rows} WHERE payload_id IS NOT NULL)`,
    );
  }

  /** True when `body` is stored in parts rather than inline (larger than one part). */
  static needsParts(body: Buffer): boolean {
    return body.length > PART_BYTES;
  }

  /** Writes `body` as parts and returns their payload id. */
  async stage(body: Buffer, now: number): Promise<number> {
    const payloadId = newPayloadId();
    for (const { part, bytes } of bodyParts(body)) {
      if (part > 0) await yieldToEventLoop();
      if (!this.sqlite.open) throw this.closedError();
      this.insertPart.run(payloadId, part, bytes, now);
    }
    return payloadId;
  }

  /** The body of a committed payload, read a part per turn of the event loop. */
  async read(payloadId: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    let size = 0;
    for (let part = 0; ; part++) {
      if (part > 0) await yieldToEventLoop();
      const row = this.selectPart.get(payloadId, part) as { bytes: Buffer } | undefined;
      if (row === undefined) break;
      parts.push(row.bytes);
      size += row.bytes.length;
    }
    return concatInSlices(parts, size);
  }

  /**
   * For the transaction that prunes rows received before `prunedBefore`: removes the parts of
   * those rows (their payload ids, null for a row stored inline), and the parts no row names that
   * were staged a grace before that (a process that died between staging and its row's commit;
   * nothing was answered). Pruning is far behind any staging still in flight.
   */
  dropParts(payloadIds: Iterable<number | null>, prunedBefore: number): void {
    this.dropPayloads(payloadIds);
    this.dropStrays(prunedBefore);
  }

  /** The parts of pruned rows (their payload ids, null for a row stored inline). */
  dropPayloads(payloadIds: Iterable<number | null>): void {
    for (const payloadId of payloadIds) if (payloadId !== null) this.deleteParts.run(payloadId);
  }

  /**
   * The parts no row names, staged a grace before `prunedBefore`. It reads every row that names a
   * payload: once per prune, not once per batch of a prune that goes in batches.
   */
  dropStrays(prunedBefore: number): void {
    this.deleteStrays.run(prunedBefore - STAGING_GRACE_MS);
  }
}
