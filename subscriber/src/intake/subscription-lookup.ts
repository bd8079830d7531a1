// The callback's subscription by its token, for every delivery POST: a short-lived cache spares the
// store. A subscription's secret never changes; a state change made elsewhere (CLI, planner) is seen
// within CACHE_MS, and the ones made by a verification here drop the entry at once (`forget`).
import type { SubscriberRepository, SubscriptionRecord } from '../store/index.js';

const CACHE_MS = 1_000;
const MAX_ENTRIES = 10_000;

export class SubscriptionLookup {
  private readonly cache = new Map<string, { rec: SubscriptionRecord; at: number }>();

  constructor(
    private readonly repo: SubscriberRepository,
    private readonly clock: () => number,
  ) {}

  async find(token: string): Promise<SubscriptionRecord | undefined> {
    const now = this.clock();
    const hit = this.cache.get(token);
    if (hit && now - hit.at < CACHE_MS) return hit.rec;
    const rec = await this.repo.findSubscriptionByToken(token);
    if (this.cache.size > MAX_ENTRIES) this.cache.clear();
    if (rec) this.cache.set(token, { rec, at: now });
    return rec;
  }

  forget(token: string): void {
    this.cache.delete(token);
  }
}
