// The operator's operations over the shared store: what the admin API, the console pages and the
// CLI's `--db` mode all call. Results are plain views with every secret already redacted, except the
// one answer that must carry a fresh token (Source added or rotated), which is shown once.
import { signatureHeader } from '@rsnotify/shared';
import { deliveryTarget, type SendDelivery } from '../outbound/index.js';
import type { HubRepository, SourceRecord } from '../store/index.js';
import { generateToken, hashToken } from '../tenants/index.js';
import type { TenantDirectory } from '../tenants/index.js';
import { deliveryHealth, type DeliveryHealth } from './health.js';
import { redactText, redactUrl } from '@rsnotify/service-kit';
import { tokenFingerprint, urlOrigin } from './display.js';
import { AdminError } from './admin-error.js';
import {
  bridgedView,
  pollIntervalMs,
  requireBridge,
  type AdminBridge,
  type BridgedSourceView,
} from './bridged.js';
import type { AdminStore, ClusterCounters, SubscriptionDeliveryRow } from './store.js';

export { AdminError } from './admin-error.js';

export interface SourceView {
  readonly name: string;
  readonly topicPrefixes: readonly string[];
  readonly allowCallbacks: readonly string[];
  readonly tokenFingerprint: string;
  readonly createdAt: string;
}

export interface SubscriptionView {
  readonly id: number;
  readonly topic: string;
  /** Origin and short hash only: the path is the subscriber's capability. */
  readonly callback: string;
  readonly callbackOrigin: string | undefined;
  readonly state: 'active' | 'expired';
  readonly health: DeliveryHealth;
  readonly leaseExpiresAt: string;
  readonly signed: boolean;
  readonly queueDepth: number;
  readonly deliveredSeq: number;
  readonly attempts: number;
  readonly nextAttemptAt: string | undefined;
  readonly lastStatus: number | undefined;
  readonly lastError: string | undefined;
  readonly givenUp: number;
}

export interface SubscriptionFilter {
  readonly topic?: string;
  readonly callbackOrigin?: string;
  readonly state?: 'active' | 'expired';
  readonly health?: DeliveryHealth;
}

export interface RetryResult {
  readonly seq: number;
  readonly outcome: 'delivered' | 'failed' | 'missing';
  readonly status?: number;
  readonly error?: string;
}

export interface AdminServiceDeps {
  readonly repo: HubRepository;
  readonly admin: AdminStore;
  readonly tenants: TenantDirectory;
  /** Absent where nothing may leave the machine (the CLI's --db mode): retry is then refused. */
  readonly send?: SendDelivery;
  readonly now: () => number;
  /** A subscription was deleted: the local delivery scheduler forgets it. */
  readonly onSubscriptionDeleted?: (id: number) => void;
  /** hub.secret as stored → the secret itself (secrets at rest, hub/src/secrets); default as is. */
  readonly openSecret?: (stored: string) => string;
  /** The poll-to-push bridge, where the store has one (SQLite): bridged Sources. */
  readonly bridge?: AdminBridge;
}

const RATE_WINDOW_MS = 5 * 60_000;

function iso(ms: number | undefined): string | undefined {
  return ms === undefined || ms === 0 ? undefined : new Date(ms).toISOString();
}

export function sourceView(s: SourceRecord): SourceView {
  return {
    name: s.name,
    topicPrefixes: s.topicPrefixes,
    allowCallbacks: s.callbackPrefixes,
    tokenFingerprint: tokenFingerprint(s.tokenHash),
    createdAt: new Date(s.createdAt).toISOString(),
  };
}

export function subscriptionView(r: SubscriptionDeliveryRow, now: number): SubscriptionView {
  return {
    id: r.id,
    topic: r.topicUrl,
    callback: redactUrl(r.callback),
    callbackOrigin: urlOrigin(r.callback),
    state: r.leaseExpiresAt > now ? 'active' : 'expired',
    health: deliveryHealth(r, now),
    leaseExpiresAt: new Date(r.leaseExpiresAt).toISOString(),
    signed: r.signed,
    queueDepth: Math.max(0, r.topicLastSeq - r.deliveredSeq),
    deliveredSeq: r.deliveredSeq,
    attempts: r.attempts,
    nextAttemptAt: r.attempts > 0 ? iso(r.nextAttemptAt) : undefined,
    lastStatus: r.lastStatus,
    lastError:
      r.lastError !== undefined
        ? redactText(r.lastError)
        : r.attempts > 0 && r.lastStatus !== undefined
          ? `HTTP ${r.lastStatus}`
          : undefined,
    givenUp: r.givenUp,
  };
}

export class AdminService {
  constructor(private readonly deps: AdminServiceDeps) {}

  async sources(): Promise<SourceView[]> {
    return (await this.deps.repo.listSources()).map(sourceView);
  }

  async addSource(input: {
    name: string;
    topicPrefixes: readonly string[];
    allowCallbacks?: readonly string[];
  }): Promise<{ source: SourceView; token: string }> {
    const { token, source } = await this.deps.tenants.addSource(
      input.name,
      input.topicPrefixes,
      input.allowCallbacks ?? [],
    );
    return { source: sourceView(source), token };
  }

  async bridgedSources(): Promise<BridgedSourceView[]> {
    return this.deps.bridge ? (await this.deps.bridge.list()).map(bridgedView) : [];
  }

  /** A Source the hub polls (its Change Lists) and publishes on `{hub}/bridge/NAME`: no token. */
  async addBridgedSource(input: {
    name: string;
    pollUrl: string;
    pollInterval?: number | string;
  }): Promise<BridgedSourceView> {
    const bridge = requireBridge(this.deps.bridge);
    return bridgedView(
      await bridge.add(input.name, input.pollUrl, pollIntervalMs(input.pollInterval)),
    );
  }

  async removeSource(name: string): Promise<void> {
    if (this.deps.bridge && (await this.deps.bridge.remove(name))) return;
    if (!(await this.deps.tenants.removeSource(name)))
      throw new AdminError('RSN_ADMIN_NOT_FOUND', `no Source named ${JSON.stringify(name)}`);
  }

  /** A new publish token; the old one stops working (within the tenant cache's change check). */
  async rotateSourceToken(name: string): Promise<{ token: string; tokenFingerprint: string }> {
    const token = generateToken();
    const hash = hashToken(token);
    if (!(await this.deps.admin.setSourceTokenHash(name, hash)))
      throw new AdminError('RSN_ADMIN_NOT_FOUND', `no Source named ${JSON.stringify(name)}`);
    return { token, tokenFingerprint: tokenFingerprint(hash) };
  }

  async subscriptions(filter: SubscriptionFilter = {}): Promise<SubscriptionView[]> {
    const now = this.deps.now();
    return (await this.deps.admin.subscriptionDeliveries())
      .map((r) => subscriptionView(r, now))
      .filter(
        (s) =>
          (filter.topic === undefined || s.topic === filter.topic) &&
          (filter.callbackOrigin === undefined || s.callbackOrigin === filter.callbackOrigin) &&
          (filter.state === undefined || s.state === filter.state) &&
          (filter.health === undefined || s.health === filter.health),
      );
  }

  async subscription(
    id: number,
  ): Promise<SubscriptionView & { givenUpItems: { seq: number; reason: string; at: string }[] }> {
    const row = await this.deps.admin.subscriptionDelivery(id);
    if (!row) throw new AdminError('RSN_ADMIN_NOT_FOUND', `no subscription ${id}`);
    const items = await this.deps.admin.listGivenUp(id);
    return {
      ...subscriptionView(row, this.deps.now()),
      givenUpItems: items.map((g) => ({
        seq: g.seq,
        reason: redactText(g.reason),
        at: new Date(g.at).toISOString(),
      })),
    };
  }

  async deleteSubscription(id: number): Promise<void> {
    if (!(await this.deps.admin.deleteSubscription(id)))
      throw new AdminError('RSN_ADMIN_NOT_FOUND', `no subscription ${id}`);
    this.deps.onSubscriptionDeleted?.(id);
  }

  async topics() {
    return (await this.deps.admin.topicStats(this.deps.now(), RATE_WINDOW_MS)).map((t) => ({
      url: t.url,
      lastSeq: t.lastSeq,
      subscribers: t.subscribers,
      ratePerMinute: Math.round((t.recentNotifications / (RATE_WINDOW_MS / 60_000)) * 100) / 100,
    }));
  }

  async rejections(limit = 50) {
    return (await this.deps.admin.recentRejections(limit)).map((r) => ({
      at: new Date(r.at).toISOString(),
      status: r.status,
      kind: r.kind,
      reason: r.reason,
    }));
  }

  async counters(): Promise<ClusterCounters> {
    return this.deps.admin.counters(this.deps.now());
  }

  /**
   * Sends each given-up notification of a subscription once more, now, signed as a delivery would be
   * (WH-18). Delivered ones leave the given-up list; the others stay with their outcome reported.
   * It runs in whichever hub process answered, from the shared store.
   */
  async retryGivenUp(id: number): Promise<RetryResult[]> {
    const send = this.deps.send;
    if (!send)
      throw new AdminError(
        'RSN_ADMIN_NO_DELIVERY',
        'retrying deliveries needs a running hub (use --hub)',
      );
    const row = await this.deps.admin.subscriptionDelivery(id);
    if (!row) throw new AdminError('RSN_ADMIN_NOT_FOUND', `no subscription ${id}`);
    const sub = (await this.deps.repo.listSubscriptions({ topicUrl: row.topicUrl })).find(
      (s) => s.id === id,
    );
    if (!sub) throw new AdminError('RSN_ADMIN_NOT_FOUND', `no subscription ${id}`);
    const results: RetryResult[] = [];
    for (const g of await this.deps.admin.listGivenUp(id)) {
      const n = await this.deps.repo.getNotification(g.topicId, g.seq);
      if (!n) {
        results.push({
          seq: g.seq,
          outcome: 'missing',
          error: 'notification no longer stored (pruned)',
        });
        continue;
      }
      const headers: Record<string, string> = { 'content-type': n.contentType, link: n.linkHeader };
      if (sub.secret !== undefined)
        headers['x-hub-signature'] = signatureHeader(
          sub.algorithm,
          this.deps.openSecret ? this.deps.openSecret(sub.secret) : sub.secret,
          n.body,
        );
      const outcome = await send(deliveryTarget(sub.callback), headers, n.body);
      if (outcome.kind === 'delivered') {
        await this.deps.admin.deleteGivenUp(g.id);
        results.push({ seq: g.seq, outcome: 'delivered', status: outcome.status });
      } else {
        results.push({
          seq: g.seq,
          outcome: 'failed',
          ...(outcome.status !== undefined ? { status: outcome.status } : {}),
          ...(outcome.kind === 'failed' && outcome.code ? { error: outcome.code } : {}),
        });
      }
    }
    return results;
  }
}
