// Large bodies stored in parts, by the hub (both engines) and the subscriber's inbox: no single
// statement carries a whole body of up to 16 MiB. SQLite writes synchronously on the event loop
// (and rewrites a row whole when any column of it changes), and node-postgres copies every
// parameter of a statement into one message before it sends it (a 16 MiB bytea held the loop for
// 50-85 ms). A row naming a payload id has an empty body; its parts, in order, are the body.
import { randomInt } from 'node:crypto';

/** The size of a part (~1-3 ms of the event loop to write or read one). */
export const PART_BYTES = 512 * 1024;

/**
 * A payload id for a new body in parts. Random rather than counted, so that two hub processes
 * storing on one database never pick the same id (the unique index would refuse it).
 */
export function newPayloadId(): number {
  return randomInt(1, 2 ** 47);
}

/** `body` cut into parts of PART_BYTES (views, not copies). */
export function* bodyParts(body: Buffer): Generator<{ part: number; bytes: Buffer }> {
  for (let part = 0, at = 0; at < body.length; part++, at += PART_BYTES) {
    yield { part, bytes: body.subarray(at, at + PART_BYTES) };
  }
}
