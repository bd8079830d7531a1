// Subscription and intent rows (the same columns in both engines' schemas) to the records of the
// store contract (repository.ts).
import type { SignatureMethod } from '@rsnotify/shared';
import type { Intent, IntentMode, Subscription } from './repository.js';

export interface SubscriptionRow {
  readonly id: number;
  readonly topicId: number;
  readonly topicAsGiven: string;
  readonly callback: string;
  readonly secret: string | null;
  readonly algorithm: string;
  readonly leaseSeconds: number;
  readonly leaseExpiresAt: number;
  readonly deliveredSeq: number;
  readonly nextAttemptAt: number;
  readonly attempts: number;
  readonly firstFailedAt: number | null;
  readonly lastStatus: number | null;
  readonly lastError: string | null;
}

export interface IntentRow {
  readonly id: number;
  readonly mode: IntentMode;
  readonly topicUrl: string;
  readonly topicAsGiven: string;
  readonly callback: string;
  readonly secret: string | null;
  readonly leaseSeconds: number | null;
  readonly reason: string | null;
  readonly attempts: number;
  readonly nextAttemptAt: number;
  readonly createdAt: number;
}

export function toSubscription(row: SubscriptionRow, topicUrl: string): Subscription {
  return {
    id: row.id,
    topicId: row.topicId,
    topicUrl,
    topicAsGiven: row.topicAsGiven,
    callback: row.callback,
    secret: row.secret ?? undefined,
    algorithm: row.algorithm as SignatureMethod,
    leaseSeconds: row.leaseSeconds,
    leaseExpiresAt: row.leaseExpiresAt,
    deliveredSeq: row.deliveredSeq,
    nextAttemptAt: row.nextAttemptAt,
    attempts: row.attempts,
    firstFailedAt: row.firstFailedAt ?? undefined,
    lastStatus: row.lastStatus ?? undefined,
    lastError: row.lastError ?? undefined,
  };
}

export function toIntent(row: IntentRow): Intent {
  return {
    id: row.id,
    mode: row.mode,
    topicUrl: row.topicUrl,
    topicAsGiven: row.topicAsGiven,
    callback: row.callback,
    secret: row.secret ?? undefined,
    leaseSeconds: row.leaseSeconds ?? undefined,
    reason: row.reason ?? undefined,
    attempts: row.attempts,
    nextAttemptAt: row.nextAttemptAt,
    createdAt: row.createdAt,
  };
}
