// The operator console's view of the store, in domain nouns. Every figure the console shows comes
// from here (the shared database), never from one hub process's memory, so any process of a cluster
// answers the same. Engines: ./sqlite/admin.ts, ./postgres/admin.ts. It lives in store/ (admin/
// re-exports it) so that store/ never imports admin/: the folders stay free of cycles.

export interface AdminTokenRecord {
  readonly id: number;
  readonly name: string;
  readonly tokenHash: string;
  readonly createdAt: number;
  readonly lastUsedAt: number | undefined;
}

export interface RejectionRecord {
  readonly id: number;
  readonly at: number;
  readonly status: number;
  readonly kind: string;
  readonly reason: string;
}

export interface TopicStats {
  readonly id: number;
  readonly url: string;
  readonly lastSeq: number;
  /** Subscriptions with a live lease. */
  readonly subscribers: number;
  /** Notifications accepted within the stats window. */
  readonly recentNotifications: number;
}

/** A subscription row with what its delivery health is computed from. */
export interface SubscriptionDeliveryRow {
  readonly id: number;
  readonly topicUrl: string;
  readonly callback: string;
  readonly signed: boolean;
  readonly leaseExpiresAt: number;
  readonly deliveredSeq: number;
  readonly topicLastSeq: number;
  readonly attempts: number;
  readonly firstFailedAt: number | undefined;
  readonly nextAttemptAt: number;
  readonly lastStatus: number | undefined;
  readonly lastError: string | undefined;
  readonly givenUp: number;
}

export interface GivenUpRecord {
  readonly id: number;
  readonly subscriptionId: number;
  readonly topicId: number;
  readonly seq: number;
  readonly reason: string;
  readonly at: number;
}

export interface ClusterCounters {
  readonly activeSubscriptions: number;
  readonly pendingIntents: number;
  readonly queueDepth: number;
  readonly givenUp: number;
  readonly notificationsLastMinute: number;
  readonly rejectionsLastHour: number;
}

export interface AdminStore {
  addAdminToken(t: { name: string; tokenHash: string; now: number }): Promise<AdminTokenRecord>;
  listAdminTokens(): Promise<AdminTokenRecord[]>;
  revokeAdminToken(name: string): Promise<boolean>;
  findAdminTokenByHash(tokenHash: string): Promise<AdminTokenRecord | undefined>;
  touchAdminToken(id: number, now: number): Promise<void>;

  createSession(s: {
    sessionHash: string;
    adminTokenId: number;
    now: number;
    expiresAt: number;
  }): Promise<void>;
  /** The admin token behind a live session, or undefined (unknown, expired or its token revoked). */
  findSession(sessionHash: string, now: number): Promise<AdminTokenRecord | undefined>;
  deleteSession(sessionHash: string): Promise<void>;

  recordRejection(r: { at: number; status: number; kind: string; reason: string }): Promise<void>;
  recentRejections(limit: number): Promise<RejectionRecord[]>;

  /** Replaces a Source's publish token hash; false when no Source has that name. */
  setSourceTokenHash(name: string, tokenHash: string): Promise<boolean>;

  topicStats(now: number, windowMs: number): Promise<TopicStats[]>;
  subscriptionDeliveries(): Promise<SubscriptionDeliveryRow[]>;
  subscriptionDelivery(id: number): Promise<SubscriptionDeliveryRow | undefined>;
  listGivenUp(subscriptionId: number): Promise<GivenUpRecord[]>;
  deleteGivenUp(id: number): Promise<void>;
  deleteSubscription(id: number): Promise<boolean>;
  counters(now: number): Promise<ClusterCounters>;

  close(): void | Promise<void>;
}
