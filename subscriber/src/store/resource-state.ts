// The mirror's per-resource state (DATA's ResourceStateStore contract) over the `resources` table of
// one source. Writes are group-committed with everything else of the same event-loop turn.
import type { SubscriberRepository } from './repository.js';

export interface ResourceState {
  lastChangeKey?: string;
  sha256?: string;
  length?: number;
}

/** Structurally the `ResourceStateStore` the mirror (subscriber/src/mirror) asks for. */
export interface ResourceStateStoreImpl {
  get(uri: string): Promise<ResourceState | undefined>;
  set(uri: string, state: (ResourceState & { path: string }) | null): Promise<void>;
}

export function createResourceStateStore(
  repo: SubscriberRepository,
  sourceId: number,
): ResourceStateStoreImpl {
  return {
    async get(uri) {
      const rec = await repo.getResource(sourceId, uri);
      if (!rec) return undefined;
      const out: ResourceState = {};
      if (rec.lastChangeKey !== undefined) out.lastChangeKey = rec.lastChangeKey;
      if (rec.sha256 !== undefined) out.sha256 = rec.sha256;
      if (rec.length !== undefined) out.length = rec.length;
      return out;
    },
    async set(uri, state) {
      await repo.setResource(sourceId, uri, state === null ? null : { uri, ...state });
    },
  };
}
