// Resource List snapshots (RS §10). A snapshot freezes the set of versions at one moment; its pages
// are rendered on demand and cached. The index names its parts by snapshot id, so a Destination
// walking the parts while the Source keeps changing still reads one consistent snapshot (RC-16:
// "together the lists describe the whole set at one point in time").
import type { DateTime } from '@rsnotify/shared';
import {
  resourceList,
  resourceListIndex,
  resourceListPartUrl,
  serialize,
  type SourceUrls,
} from './documents.js';
import type { ResourceState, ResourceVersion } from './state.js';

interface Snapshot {
  readonly id: number;
  readonly revision: number;
  readonly at: DateTime;
  readonly versions: readonly ResourceVersion[];
  readonly pages: number;
  readonly bodies: Map<number, Buffer>;
}

export class ResourceListSnapshots {
  private readonly snapshots: Snapshot[] = [];
  private nextId = 1;

  constructor(
    private readonly urls: SourceUrls,
    private readonly pageSize: number,
    private readonly keep: number,
  ) {}

  /** The snapshot of the state as it is now; `at` must be an instant the state reflects exactly. */
  private current(state: ResourceState, at: DateTime): Snapshot {
    const last = this.snapshots[this.snapshots.length - 1];
    if (last && last.revision === state.revision) return last;
    const versions = state.versions();
    const snap: Snapshot = {
      id: this.nextId++,
      revision: state.revision,
      at,
      versions,
      pages: Math.max(1, Math.ceil(versions.length / this.pageSize)),
      bodies: new Map(),
    };
    this.snapshots.push(snap);
    if (this.snapshots.length > this.keep)
      this.snapshots.splice(0, this.snapshots.length - this.keep);
    return snap;
  }

  /** The Resource List, or a Resource List Index once the set is larger than a page. */
  list(state: ResourceState, at: DateTime): Buffer {
    const snap = this.current(state, at);
    let body = snap.bodies.get(0);
    if (body) return body;
    body =
      snap.versions.length <= this.pageSize
        ? serialize(resourceList(this.urls, snap.versions, snap.at))
        : serialize(
            resourceListIndex(
              this.urls,
              Array.from({ length: snap.pages }, (_, i) =>
                resourceListPartUrl(this.urls, snap.id, i + 1),
              ),
              snap.at,
            ),
          );
    snap.bodies.set(0, body);
    return body;
  }

  /** Page `page` (1-based) of snapshot `id`, while that snapshot is kept. */
  part(id: number, page: number): Buffer | undefined {
    const snap = this.snapshots.find((s) => s.id === id);
    if (!snap || snap.versions.length <= this.pageSize || page < 1 || page > snap.pages)
      return undefined;
    let body = snap.bodies.get(page);
    if (body) return body;
    const slice = snap.versions.slice((page - 1) * this.pageSize, page * this.pageSize);
    body = serialize(resourceList(this.urls, slice, snap.at, this.urls.resourceListUrl));
    snap.bodies.set(page, body);
    return body;
  }
}
