// What the simulated Source serves (the SiteModel of site.ts), over the simulator's state: the
// ResourceSync documents, built once per revision and kept with their validators (a strong ETag
// from the bytes, and a Last-Modified that moves forward whenever the bytes change, so a client's
// conditional GET is answered 304 exactly when nothing changed), and the resources themselves.
import { createHash } from 'node:crypto';
import type { DateTime } from '@rsnotify/shared';
import type { ChangeListStore } from './changelists.js';
import {
  capabilityList,
  changeList,
  changeListIndex,
  serialize,
  sourceDescription,
  type SourceUrls,
} from './documents.js';
import type { Faults } from './faults.js';
import type { HubTarget } from './publisher.js';
import type { ResourceListSnapshots } from './resource-lists.js';
import {
  resourceHeaders,
  type ServedDocument,
  type ServedResource,
  type SiteModel,
} from './site.js';
import type { ResourceState, ResourceVersion } from './state.js';

interface Cached {
  readonly key: string;
  readonly body: Buffer;
  readonly etag: string;
  readonly modifiedMs: number;
}

export interface SiteDocumentsDeps {
  readonly urls: SourceUrls;
  readonly state: ResourceState;
  readonly store: ChangeListStore;
  readonly resourceLists: ResourceListSnapshots;
  readonly faults: Faults;
  readonly clock: () => number;
  /** `until` of the last batch: the Resource List reflects exactly the changes up to it (RC-15). */
  readonly lastUntil: () => DateTime;
  readonly hub: () => HubTarget | undefined;
  readonly topicBody: () => Buffer | undefined;
}

export class SiteDocuments implements SiteModel {
  readonly urls: SourceUrls;
  /** Resources served with other bytes than listed (the corruption fault), by target. */
  readonly corrupted = new Map<string, ServedResource>();
  /** Response headers built once per version. */
  private readonly served = new WeakMap<ResourceVersion, ServedResource>();
  private readonly cache = new Map<string, Cached>();

  constructor(private readonly d: SiteDocumentsDeps) {
    this.urls = d.urls;
  }

  hub(): HubTarget | undefined {
    return this.d.hub();
  }

  private cached(name: string, key: string, build: () => Buffer): Cached {
    const hit = this.cache.get(name);
    if (hit && hit.key === key) return hit;
    const body = build();
    const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
    if (hit && hit.etag === etag) {
      this.cache.set(name, { ...hit, key });
      return hit;
    }
    // HTTP dates have whole seconds: a change is dated at least one second after the previous
    // version's Last-Modified, so If-Modified-Since never hides it.
    const modifiedMs = Math.max(
      this.d.clock(),
      hit ? Math.floor(hit.modifiedMs / 1000) * 1000 + 1000 : 0,
    );
    const entry = { key, body, etag, modifiedMs };
    this.cache.set(name, entry);
    return entry;
  }

  sourceDescription(): Buffer {
    return this.cached('description', '', () => serialize(sourceDescription(this.urls))).body;
  }

  capabilityList(): Buffer {
    const hub = this.d.hub()?.url;
    return this.cached('capabilitylist', hub ?? '', () => serialize(capabilityList(this.urls, hub)))
      .body;
  }

  resourceList(): Buffer {
    return this.d.resourceLists.list(this.d.state, this.d.lastUntil());
  }

  resourceListPart(snapshotId: number, page: number): Buffer | undefined {
    return this.d.resourceLists.part(snapshotId, page);
  }

  private lagInfo(): { completeUpTo?: DateTime } {
    const upTo = this.d.store.completeUpTo();
    return upTo ? { completeUpTo: upTo } : {};
  }

  /** Maintenance plus the history quirk, before any Change List document is served. */
  private maintainLists(): void {
    this.d.store.maintain(this.d.clock());
    if (this.d.faults.truncateHistoryNext > 0) {
      this.d.store.truncate(this.d.faults.truncateHistoryNext);
      this.d.faults.truncateHistoryNext = 0;
    }
  }

  changeListIndex(): ServedDocument {
    this.maintainLists();
    const omitFrom = this.d.faults.omitChangeListFrom > 0;
    const store = this.d.store;
    const doc = this.cached('changelist-index', `${store.revision}/${omitFrom}`, () => {
      // Drop cached bodies of lists that fell out of retention.
      const live = new Set(store.lists.map((l) => `changelist-${l.id}`));
      for (const name of this.cache.keys())
        if (name.startsWith('changelist-') && name !== 'changelist-index' && !live.has(name))
          this.cache.delete(name);
      return serialize(changeListIndex(this.urls, store.lists, omitFrom));
    });
    return { body: doc.body, etag: doc.etag, lastModifiedMs: doc.modifiedMs, ...this.lagInfo() };
  }

  changeList(id: number): ServedDocument | undefined {
    this.maintainLists();
    const list = this.d.store.get(id);
    if (!list) return undefined;
    const omitFrom = this.d.faults.omitChangeListFrom > 0;
    const doc = this.cached(`changelist-${id}`, `${list.revision}/${omitFrom}`, () =>
      serialize(changeList(this.urls, list, omitFrom)),
    );
    return {
      body: doc.body,
      etag: doc.etag,
      lastModifiedMs: doc.modifiedMs,
      ...(list.until ? {} : this.lagInfo()),
    };
  }

  /** From now on `version` is served with `bytes`, under headers that describe those bytes. */
  serveCorrupted(version: ResourceVersion, bytes: Buffer): void {
    const etag = `"corrupt-${version.sha256.slice(0, 16)}-${version.version}"`;
    // The server does not know it is lying: its headers describe the bytes it sends.
    this.corrupted.set(version.target, {
      bytes,
      etag,
      headers: resourceHeaders(
        this.urls,
        bytes,
        etag,
        version.media.contentType,
        version.modified.epochMs,
      ),
    });
  }

  topicBody(): Buffer | undefined {
    return this.d.topicBody();
  }

  resource(target: string): ServedResource | undefined {
    const v = this.d.state.get(target);
    if (!v) return undefined;
    const bad = this.corrupted.get(target);
    if (bad) return bad;
    let served = this.served.get(v);
    if (!served) {
      const etag = `"${v.sha256}"`;
      served = {
        bytes: v.bytes,
        etag,
        headers: resourceHeaders(this.urls, v.bytes, etag, v.media.contentType, v.modified.epochMs),
      };
      this.served.set(v, served);
    }
    return served;
  }
}
