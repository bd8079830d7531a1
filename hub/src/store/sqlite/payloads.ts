// Large notification bodies in parts (schema.notificationParts). better-sqlite3 is synchronous: a
// 16 MiB body inserted as one row held the event loop for 120-280 ms (4,096 overflow pages written
// to the WAL in one statement). Here a body over PART_BYTES is staged as parts, one short commit per
// part with a turn of the event loop between them, under a fresh payload id; the notification row
// that names the id is written afterwards by the usual group commit. Until that commit the parts
// belong to no notification (delivery reads notifications only), so a crash mid-way loses nothing
// that was answered 200 (promise 1) and leaves parts that upkeep sweeps.
import type Database from 'better-sqlite3';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { concatInSlices } from '@rsnotify/service-kit';
import { PART_BYTES, bodyParts, newPayloadId } from '../body-parts.js';
import { StoreError } from '../errors.js';

/** Staged parts no notification names after this long are a publish that never committed. */
export const STAGING_GRACE_MS = 10 * 60_000;

export class PayloadParts {
  private readonly insertPart: Database.Statement<[number, number, Buffer, number]>;
  private readonly selectPart: Database.Statement<[number, number]>;

  constructor(private readonly sqlite: Database.Database) {
    this.insertPart = sqlite.prepare(
      'INSERT INTO notification_parts (payload_id, part, bytes, created_at) VALUES (?, ?, ?, ?)',
    );
    this.selectPart = sqlite
      .prepare('SELECT bytes FROM notification_parts WHERE payload_id = ? AND part = ?')
      .pluck() as Database.Statement<[number, number]>;
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
      if (!this.sqlite.open)
        throw new StoreError('RSN_STORE_UNAVAILABLE', 'the hub database is closed');
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
      const bytes = this.selectPart.get(payloadId, part) as Buffer | undefined;
      if (bytes === undefined) break;
      parts.push(bytes);
      size += bytes.length;
    }
    return concatInSlices(parts, size);
  }
}
