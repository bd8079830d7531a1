// Large notification bodies in parts (schema.notificationParts; the cut: service-kit's
// body-parts.ts). The parts are written inside the transaction that inserts their notification
// row, a statement each, so they commit with it or not at all (nothing to sweep after a crash,
// unlike SQLite's staging), and go with it when it is pruned (ON DELETE CASCADE). Each statement
// is awaited: the event loop gets a turn between parts, on the way in and on the way out.
import type pg from 'pg';
import { bodyParts, concatInSlices, newPayloadId } from '@rsnotify/service-kit';
import type { NewNotification } from '../repository.js';

/** A notification row with an empty body, then its body's parts (service-kit's bodyParts) in order. */
export async function insertInParts(
  client: pg.PoolClient,
  n: NewNotification,
  at: { readonly topicId: number; readonly seq: number },
): Promise<void> {
  const payloadId = newPayloadId();
  await client.query({
    name: 'rsn_insert_notification_in_parts',
    text: `INSERT INTO notifications (topic_id, seq, received_at, content_type, link_header, body, payload_id)
           VALUES ($1, $2, $3, $4, $5, ''::bytea, $6)`,
    values: [at.topicId, at.seq, n.receivedAt, n.contentType, n.linkHeader, payloadId],
  });
  for (const { part, bytes } of bodyParts(n.body)) {
    await client.query({
      name: 'rsn_insert_notification_part',
      text: 'INSERT INTO notification_parts (payload_id, part, bytes, created_at) VALUES ($1, $2, $3, $4)',
      values: [payloadId, part, bytes, n.receivedAt],
    });
  }
}

/** The body stored under `payloadId`, read a part per statement (their transaction wrote all or none). */
export async function readParts(pool: pg.Pool, payloadId: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for (let part = 0; ; part++) {
    const r = await pool.query<{ bytes: Buffer }>({
      name: 'rsn_get_notification_part',
      text: 'SELECT bytes FROM notification_parts WHERE payload_id = $1 AND part = $2',
      values: [payloadId, part],
    });
    const bytes = r.rows[0]?.bytes;
    if (bytes === undefined) break;
    parts.push(bytes);
    size += bytes.length;
  }
  return concatInSlices(parts, size);
}
