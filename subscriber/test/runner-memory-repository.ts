// The store contract (store/repository.ts) in memory, for driving a SourceRunner without SQLite.
// Same semantics as the SQLite engine where the runner depends on them: catch-up rows counted at
// their start, open inbox rows oldest first, position patches merged.
import type {
  CatchUpReason,
  CatchUpRecord,
  CatchUpState,
  EventRecord,
  GapRecord,
  InboxRow,
  InboxState,
  NewInboxRow,
  NewSubscription,
  PositionRecord,
  ReconciliationRecord,
  ResourceRecord,
  SourceActivity,
  SourceCounters,
  SourcePatch,
  SourceRecord,
  SubscriberRepository,
  SubscriptionPatch,
  SubscriptionRecord,
} from '../src/store/index.js';
import { OPEN_INBOX_STATES } from '../src/store/index.js';

export class MemoryRepository implements SubscriberRepository {
  readonly sources = new Map<number, SourceRecord>();
  readonly subscriptions = new Map<number, SubscriptionRecord>();
  readonly inbox = new Map<number, InboxRow>();
  readonly positions = new Map<number, PositionRecord>();
  readonly resources = new Map<string, ResourceRecord>();
  readonly events: (EventRecord & { sourceId: number })[] = [];
  readonly catchUps: CatchUpRecord[] = [];
  private readonly catchUpCount = new Map<number, number>();
  private readonly activities = new Map<number, SourceActivity>();
  private nextId = 1;

  async ensureSource(name: string, url: string): Promise<SourceRecord> {
    const found = [...this.sources.values()].find((s) => s.name === name);
    if (found) return found;
    const rec: SourceRecord = {
      id: this.nextId++,
      name,
      url,
      mode: 'unknown',
      subscriptionDisabled: false,
      ignoredDeliveries: 0,
    };
    this.sources.set(rec.id, rec);
    return rec;
  }
  async getSource(name: string): Promise<SourceRecord | undefined> {
    return [...this.sources.values()].find((s) => s.name === name);
  }
  async listSources(): Promise<SourceRecord[]> {
    return [...this.sources.values()];
  }
  async updateSource(id: number, patch: SourcePatch): Promise<void> {
    const s = this.sources.get(id);
    if (s) this.sources.set(id, { ...s, ...patch });
  }
  async countIgnoredDelivery(sourceId: number): Promise<void> {
    const s = this.sources.get(sourceId);
    if (s) this.sources.set(sourceId, { ...s, ignoredDeliveries: s.ignoredDeliveries + 1 });
  }

  async insertSubscription(sub: NewSubscription): Promise<SubscriptionRecord> {
    const rec: SubscriptionRecord = { ...sub, id: this.nextId++, updatedAt: sub.requestedAt };
    this.subscriptions.set(rec.id, rec);
    return rec;
  }
  async updateSubscription(
    id: number,
    patch: SubscriptionPatch,
  ): Promise<SubscriptionRecord | undefined> {
    const s = this.subscriptions.get(id);
    if (!s) return undefined;
    const next = { ...s, ...patch };
    this.subscriptions.set(id, next);
    return next;
  }
  async findSubscriptionByToken(token: string): Promise<SubscriptionRecord | undefined> {
    return [...this.subscriptions.values()].find((s) => s.callbackToken === token);
  }
  async listSubscriptions(sourceId: number): Promise<SubscriptionRecord[]> {
    return [...this.subscriptions.values()].filter((s) => s.sourceId === sourceId);
  }

  async insertInbox(row: NewInboxRow): Promise<number> {
    const id = this.nextId++;
    this.inbox.set(id, { ...row, id, state: 'new' });
    return id;
  }
  async getInbox(id: number): Promise<InboxRow | undefined> {
    return this.inbox.get(id);
  }
  async listOpenInbox(
    sourceId: number,
    page?: { readonly afterId: number; readonly limit: number },
  ): Promise<InboxRow[]> {
    return [...this.inbox.values()]
      .filter(
        (r) =>
          r.sourceId === sourceId &&
          OPEN_INBOX_STATES.includes(r.state) &&
          (!page || r.id > page.afterId),
      )
      .sort((a, b) => a.id - b.id)
      .slice(0, page ? page.limit : undefined);
  }
  async listInboxRange(
    sourceId: number,
    fromId: number,
    toId: number,
    limit: number,
  ): Promise<InboxRow[]> {
    return [...this.inbox.values()]
      .filter((r) => r.sourceId === sourceId && r.id >= fromId && r.id <= toId)
      .sort((a, b) => a.id - b.id)
      .slice(0, limit);
  }
  async updateInbox(
    id: number,
    patch: { state?: InboxState; from?: string; until?: string; error?: string },
  ): Promise<void> {
    const r = this.inbox.get(id);
    if (!r) return;
    const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    this.inbox.set(id, { ...r, ...defined });
  }
  async setInboxState(ids: readonly number[], state: InboxState): Promise<void> {
    for (const id of ids) await this.updateInbox(id, { state });
  }
  async pruneInbox(): Promise<number> {
    return 0;
  }
  async pruneHistory(): Promise<number> {
    return 0;
  }

  async getPosition(sourceId: number): Promise<PositionRecord | undefined> {
    return this.positions.get(sourceId);
  }
  async savePosition(sourceId: number, patch: Omit<PositionRecord, 'sourceId'>): Promise<void> {
    this.positions.set(sourceId, { ...this.positions.get(sourceId), ...patch, sourceId });
  }

  async getResource(sourceId: number, uri: string): Promise<ResourceRecord | undefined> {
    return this.resources.get(`${sourceId} ${uri}`);
  }
  async setResource(sourceId: number, uri: string, rec: ResourceRecord | null): Promise<void> {
    if (rec) this.resources.set(`${sourceId} ${uri}`, rec);
    else this.resources.delete(`${sourceId} ${uri}`);
  }
  async listResourceUris(sourceId: number): Promise<string[]> {
    return [...this.resources.keys()]
      .filter((k) => k.startsWith(`${sourceId} `))
      .map((k) => k.slice(String(sourceId).length + 1));
  }
  async listResourcePaths(sourceId: number): Promise<{ uri: string; path: string }[]> {
    const uris = await this.listResourceUris(sourceId);
    return uris.map((uri) => ({ uri, path: this.resources.get(`${sourceId} ${uri}`)!.path }));
  }
  async setResourcePath(sourceId: number, uri: string, path: string): Promise<void> {
    const r = this.resources.get(`${sourceId} ${uri}`);
    if (r) this.resources.set(`${sourceId} ${uri}`, { ...r, path });
  }

  async addEvents(sourceId: number, events: readonly EventRecord[]): Promise<void> {
    for (const e of events) this.events.push({ ...e, sourceId });
  }
  /** Writes here are done when their promise is made: nothing waits for a window. */
  commitTrailing(): void {}
  async recentEvents(sourceId: number, limit: number): Promise<EventRecord[]> {
    return this.events.filter((e) => e.sourceId === sourceId).slice(-limit);
  }

  async startCatchUp(
    sourceId: number,
    reason: CatchUpReason,
    from: string | undefined,
    to: string | undefined,
    now: number,
  ): Promise<number> {
    this.catchUpCount.set(sourceId, (this.catchUpCount.get(sourceId) ?? 0) + 1);
    const id = this.nextId++;
    this.catchUps.push({
      id,
      sourceId,
      reason,
      ...(from ? { from } : {}),
      ...(to ? { to } : {}),
      state: 'running',
      attempts: 1,
      changes: 0,
      startedAt: now,
    });
    return id;
  }
  async finishCatchUp(
    id: number,
    patch: {
      state: CatchUpState;
      changes?: number;
      lastError?: string;
      finishedAt: number;
      to?: string;
    },
  ): Promise<void> {
    const i = this.catchUps.findIndex((c) => c.id === id);
    if (i >= 0) this.catchUps[i] = { ...this.catchUps[i]!, ...patch };
  }
  async lastCatchUp(sourceId: number): Promise<CatchUpRecord | undefined> {
    return this.catchUps.filter((c) => c.sourceId === sourceId).at(-1);
  }

  async counters(sourceId: number): Promise<SourceCounters> {
    const events = this.events.filter((e) => e.sourceId === sourceId);
    return {
      openInbox: (await this.listOpenInbox(sourceId)).length,
      catchUps: this.catchUpCount.get(sourceId) ?? 0,
      failedEvents: events.filter((e) => e.outcome === 'failed').length,
      appliedEvents: events.filter((e) => e.outcome === 'written' || e.outcome === 'deleted')
        .length,
      resources: (await this.listResourceUris(sourceId)).length,
    };
  }
  async recordGap(sourceId: number, gap: GapRecord): Promise<void> {
    const a = await this.activity(sourceId);
    this.activities.set(sourceId, { ...a, gaps: a.gaps + 1, lastGap: gap });
  }
  async recordReconciliation(sourceId: number, rec: ReconciliationRecord): Promise<void> {
    this.activities.set(sourceId, { ...(await this.activity(sourceId)), lastReconciliation: rec });
  }
  async activity(sourceId: number): Promise<SourceActivity> {
    return this.activities.get(sourceId) ?? { gaps: 0 };
  }
  async close(): Promise<void> {}
}
