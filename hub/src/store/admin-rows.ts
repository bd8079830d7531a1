// The console's rows (the same columns in both engines' admin tables) to the records of the
// AdminStore contract (admin-contract.ts), and what both engines' AdminStores share besides.
import type { AdminTokenRecord, SubscriptionDeliveryRow } from './admin-contract.js';
import { StoreError } from './errors.js';

/** The rejection log keeps this many newest rows. */
export const REJECTIONS_KEPT = 500;

export interface TokenRow {
  id: number;
  name: string;
  token_hash: string;
  created_at: number;
  last_used_at: number | null;
}

export interface DeliveryRow {
  id: number;
  url: string;
  callback: string;
  secret: string | null;
  lease_expires_at: number;
  delivered_seq: number;
  last_seq: number;
  attempts: number;
  first_failed_at: number | null;
  next_attempt_at: number;
  last_status: number | null;
  last_error: string | null;
  given_up: number;
}

// CAST rather than PostgreSQL's ::int so the one text serves both engines (PostgreSQL's COUNT is a
// bigint, which its driver would hand back as a string). `topicEnd`: the engine's SQL for the topic's
// last seq (SQLite reads it from its notifications: sqlite/topic-ends.ts).
export const deliverySelect = (
  topicEnd: string,
): string => `SELECT s.id, t.url, s.callback, s.secret, s.lease_expires_at, s.delivered_seq, ${topicEnd} AS last_seq, s.attempts,
  s.first_failed_at, s.next_attempt_at, s.last_status, s.last_error,
  (SELECT CAST(COUNT(*) AS INTEGER) FROM given_up g WHERE g.subscription_id = s.id) AS given_up
  FROM subscriptions s JOIN topics t ON t.id = s.topic_id`;

export const DELIVERY_SELECT = deliverySelect('t.last_seq');

export function toToken(r: TokenRow): AdminTokenRecord {
  return {
    id: r.id,
    name: r.name,
    tokenHash: r.token_hash,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at ?? undefined,
  };
}

export function toDelivery(r: DeliveryRow): SubscriptionDeliveryRow {
  return {
    id: r.id,
    topicUrl: r.url,
    callback: r.callback,
    signed: r.secret !== null,
    leaseExpiresAt: r.lease_expires_at,
    deliveredSeq: r.delivered_seq,
    topicLastSeq: r.last_seq,
    attempts: r.attempts,
    firstFailedAt: r.first_failed_at ?? undefined,
    nextAttemptAt: r.next_attempt_at,
    lastStatus: r.last_status ?? undefined,
    lastError: r.last_error ?? undefined,
    givenUp: r.given_up,
  };
}

/** The refusal of a second admin token under a name (each engine recognises its unique violation). */
export function adminTokenExists(name: string): StoreError {
  return new StoreError(
    'RSN_ADMIN_TOKEN_EXISTS',
    `an admin token named ${JSON.stringify(name)} exists already`,
    { details: { name } },
  );
}
