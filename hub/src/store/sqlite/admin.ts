// The SQLite engine of the console's AdminStore. It opens its own connection to the hub database, so
// its writes (a rotated token, a deleted subscription) reach every hub process the way the CLI's do:
// through the database, noticed by the other connections' change markers.
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  AdminStore,
  AdminTokenRecord,
  ClusterCounters,
  GivenUpRecord,
  RejectionRecord,
  SubscriptionDeliveryRow,
  TopicStats,
} from '../admin-contract.js';
import { StoreError } from '../errors.js';
import {
  adminTokenExists,
  deliverySelect,
  REJECTIONS_KEPT,
  toDelivery,
  toToken,
  type DeliveryRow,
  type TokenRow,
} from '../admin-rows.js';
import { topicEndSql } from './topic-ends.js';

/** A topic's last seq is read from its notifications here (topic-ends.ts). */
const DELIVERY_SELECT_SQLITE = deliverySelect(topicEndSql('t'));

const migrationsFolder = fileURLToPath(new URL('../../../drizzle', import.meta.url));
export function openSqliteAdminStore(file: string): AdminStore {
  let sqlite: Database.Database;
  try {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    sqlite = new Database(file);
  } catch (err) {
    throw new StoreError('RSN_STORE_OPEN_FAILED', `cannot open hub database ${file}`, {
      cause: err,
      details: { file },
    });
  }
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  migrate(drizzle(sqlite), { migrationsFolder });
  return new SqliteAdminStore(sqlite);
}

class SqliteAdminStore implements AdminStore {
  constructor(private readonly sqlite: Database.Database) {}

  async addAdminToken(t: {
    name: string;
    tokenHash: string;
    now: number;
  }): Promise<AdminTokenRecord> {
    try {
      const row = this.sqlite
        .prepare(
          'INSERT INTO admin_tokens (name, token_hash, created_at) VALUES (?, ?, ?) RETURNING *',
        )
        .get(t.name, t.tokenHash, t.now) as TokenRow;
      return toToken(row);
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
        throw adminTokenExists(t.name);
      }
      throw err;
    }
  }

  async listAdminTokens(): Promise<AdminTokenRecord[]> {
    return (
      this.sqlite.prepare('SELECT * FROM admin_tokens ORDER BY name').all() as TokenRow[]
    ).map(toToken);
  }

  async revokeAdminToken(name: string): Promise<boolean> {
    return this.sqlite.prepare('DELETE FROM admin_tokens WHERE name = ?').run(name).changes > 0;
  }

  async findAdminTokenByHash(tokenHash: string): Promise<AdminTokenRecord | undefined> {
    const row = this.sqlite
      .prepare('SELECT * FROM admin_tokens WHERE token_hash = ?')
      .get(tokenHash) as TokenRow | undefined;
    return row ? toToken(row) : undefined;
  }

  async touchAdminToken(id: number, now: number): Promise<void> {
    this.sqlite.prepare('UPDATE admin_tokens SET last_used_at = ? WHERE id = ?').run(now, id);
  }

  async createSession(s: {
    sessionHash: string;
    adminTokenId: number;
    now: number;
    expiresAt: number;
  }): Promise<void> {
    this.sqlite.transaction(() => {
      this.sqlite.prepare('DELETE FROM admin_sessions WHERE expires_at <= ?').run(s.now);
      this.sqlite
        .prepare(
          'INSERT INTO admin_sessions (session_hash, admin_token_id, created_at, expires_at) VALUES (?, ?, ?, ?)',
        )
        .run(s.sessionHash, s.adminTokenId, s.now, s.expiresAt);
    })();
  }

  async findSession(sessionHash: string, now: number): Promise<AdminTokenRecord | undefined> {
    const row = this.sqlite
      .prepare(
        `SELECT t.* FROM admin_sessions s JOIN admin_tokens t ON t.id = s.admin_token_id
      WHERE s.session_hash = ? AND s.expires_at > ?`,
      )
      .get(sessionHash, now) as TokenRow | undefined;
    return row ? toToken(row) : undefined;
  }

  async deleteSession(sessionHash: string): Promise<void> {
    this.sqlite.prepare('DELETE FROM admin_sessions WHERE session_hash = ?').run(sessionHash);
  }

  async recordRejection(r: {
    at: number;
    status: number;
    kind: string;
    reason: string;
  }): Promise<void> {
    const id = this.sqlite
      .prepare(
        'INSERT INTO admin_rejections (at, status, kind, reason) VALUES (?, ?, ?, ?) RETURNING id',
      )
      .pluck()
      .get(r.at, r.status, r.kind, r.reason.slice(0, 500)) as number;
    if (id % 50 === 0)
      this.sqlite.prepare('DELETE FROM admin_rejections WHERE id <= ?').run(id - REJECTIONS_KEPT);
  }

  async recentRejections(limit: number): Promise<RejectionRecord[]> {
    return this.sqlite
      .prepare('SELECT id, at, status, kind, reason FROM admin_rejections ORDER BY id DESC LIMIT ?')
      .all(limit) as RejectionRecord[];
  }

  async setSourceTokenHash(name: string, tokenHash: string): Promise<boolean> {
    return (
      this.sqlite.prepare('UPDATE sources SET token_hash = ? WHERE name = ?').run(tokenHash, name)
        .changes > 0
    );
  }

  async topicStats(now: number, windowMs: number): Promise<TopicStats[]> {
    return this.sqlite
      .prepare(
        `SELECT t.id, t.url, ${topicEndSql('t')} AS lastSeq,
        (SELECT COUNT(*) FROM subscriptions s WHERE s.topic_id = t.id AND s.lease_expires_at > ?) AS subscribers,
        (SELECT COUNT(*) FROM notifications n WHERE n.topic_id = t.id AND n.received_at > ?) AS recentNotifications
      FROM topics t ORDER BY t.url`,
      )
      .all(now, now - windowMs) as TopicStats[];
  }

  async subscriptionDeliveries(): Promise<SubscriptionDeliveryRow[]> {
    return (
      this.sqlite.prepare(`${DELIVERY_SELECT_SQLITE} ORDER BY s.id`).all() as DeliveryRow[]
    ).map(toDelivery);
  }

  async subscriptionDelivery(id: number): Promise<SubscriptionDeliveryRow | undefined> {
    const row = this.sqlite.prepare(`${DELIVERY_SELECT_SQLITE} WHERE s.id = ?`).get(id) as
      DeliveryRow | undefined;
    return row ? toDelivery(row) : undefined;
  }

  async listGivenUp(subscriptionId: number): Promise<GivenUpRecord[]> {
    return this.sqlite
      .prepare(
        `SELECT id, subscription_id AS subscriptionId, topic_id AS topicId, seq, reason, at
      FROM given_up WHERE subscription_id = ? ORDER BY seq`,
      )
      .all(subscriptionId) as GivenUpRecord[];
  }

  async deleteGivenUp(id: number): Promise<void> {
    this.sqlite.prepare('DELETE FROM given_up WHERE id = ?').run(id);
  }

  async deleteSubscription(id: number): Promise<boolean> {
    return this.sqlite.transaction(() => {
      this.sqlite.prepare('DELETE FROM given_up WHERE subscription_id = ?').run(id);
      return this.sqlite.prepare('DELETE FROM subscriptions WHERE id = ?').run(id).changes > 0;
    })();
  }

  async counters(now: number): Promise<ClusterCounters> {
    return this.sqlite
      .prepare(
        `SELECT
        (SELECT COUNT(*) FROM subscriptions WHERE lease_expires_at > ?) AS activeSubscriptions,
        (SELECT COUNT(*) FROM intents) AS pendingIntents,
        (SELECT COALESCE(SUM(MAX(0, ${topicEndSql('t')} - s.delivered_seq)), 0) FROM subscriptions s JOIN topics t ON t.id = s.topic_id) AS queueDepth,
        (SELECT COUNT(*) FROM given_up) AS givenUp,
        (SELECT COUNT(*) FROM notifications WHERE received_at > ?) AS notificationsLastMinute,
        (SELECT COUNT(*) FROM admin_rejections WHERE at > ?) AS rejectionsLastHour`,
      )
      .get(now, now - 60_000, now - 3_600_000) as ClusterCounters;
  }

  close(): void {
    if (this.sqlite.open) this.sqlite.close();
  }
}
