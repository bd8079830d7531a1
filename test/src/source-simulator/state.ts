// The Source's resources: what exists now, with bytes, hashes and the time of the last change. Plain
// data, mutated only by applyChange() (synchronously, so a batch is atomic for every reader), with a
// version number that caches of derived documents key on.
import { computeHashList, type ChangeType, type DateTime, type HashList } from '@rsnotify/shared';
import type { MediaType } from './content.js';
import type { ResourceSnapshotEntry } from './api.js';

/** What lists and notifications say about one version of a resource (no bytes: history keeps this). */
export interface VersionInfo {
  readonly hash: HashList;
  readonly sha256: string;
  readonly length: number;
  readonly media: MediaType;
  /** When this version was made: `lastmod`, and `datetime` of its created/updated change. */
  readonly modified: DateTime;
}

/** One immutable version of a resource, with its bytes. */
export interface ResourceVersion extends VersionInfo {
  /** Canonical encoded target below the base URL (`/resources/...`); the lookup key. */
  readonly target: string;
  /** Absolute URI (`loc`). */
  readonly uri: string;
  readonly version: number;
  readonly bytes: Buffer;
  readonly extension: string;
  /** The same facts without the bytes, shared by the change record. */
  readonly info: VersionInfo;
}

/** One change, as both the Change Lists and the notifications render it. */
export interface ChangeRecord {
  readonly uri: string;
  readonly target: string;
  readonly change: ChangeType;
  /** The change's time (`rs:md/@datetime`; in RS 1.0 mode `lastmod` for non-deletes). */
  readonly time: DateTime;
  readonly micros: bigint;
  /** The new version, for created/updated. Without bytes, so retained history stays small. */
  readonly version?: VersionInfo;
  /** Rendered the ResourceSync 1.0 way: lastmod as change time, no datetime, deletes without time. */
  readonly legacy: boolean;
  /** Quirk: a delete rendered without datetime, with the gone version's `lastmod` (RC-23). */
  readonly timelessDelete?: boolean;
  /** For a delete: when the deleted version was made. */
  readonly deletedModified?: DateTime;
}

export class ResourceState {
  private readonly byTarget = new Map<string, ResourceVersion>();
  /** Targets in an array too, for O(1) uniform random picks (swap-remove keeps it dense). */
  private readonly targets: string[] = [];
  private readonly position = new Map<string, number>();
  /** Deleted targets that may be created again (bounded), with their extension. */
  readonly deleted: { target: string; extension: string }[] = [];
  private mutations = 0;
  nextId = 1;

  constructor(readonly baseUrl: string) {}

  get size(): number {
    return this.byTarget.size;
  }
  /** Increments on every change: caches of documents derived from the state key on it. */
  get revision(): number {
    return this.mutations;
  }

  get(target: string): ResourceVersion | undefined {
    return this.byTarget.get(target);
  }
  has(target: string): boolean {
    return this.byTarget.has(target);
  }
  randomTarget(pick: (n: number) => number): string | undefined {
    return this.targets.length === 0 ? undefined : this.targets[pick(this.targets.length)];
  }
  /** Every current version, in a stable order (first creation order, re-created ones at the end). */
  versions(): ResourceVersion[] {
    return Array.from(this.byTarget.values());
  }

  /** Every resource by URI with its hash, length and bytes (what a mirror must end up with). */
  snapshot(): Map<string, ResourceSnapshotEntry> {
    const out = new Map<string, ResourceSnapshotEntry>();
    for (const v of this.byTarget.values())
      out.set(v.uri, { sha256: v.sha256, length: v.length, bytes: v.bytes });
    return out;
  }

  /**
   * Applies one change at `time`. created/updated need the new bytes. Returns the record that goes
   * to the Change List and the notification. Throws on an impossible change (a bug in the caller).
   */
  applyChange(input: {
    target: string;
    change: ChangeType;
    time: DateTime;
    micros: bigint;
    legacy: boolean;
    timelessDelete?: boolean;
    bytes?: Buffer;
    media?: MediaType;
    extension?: string;
    /** The `loc` when it is not the canonical one (raw hostile targets). */
    uri?: string;
  }): ChangeRecord {
    const { target, change, time, micros, legacy } = input;
    const existing = this.byTarget.get(target);
    // A raw (hostile) target keeps the `loc` it was created with.
    const uri = input.uri ?? existing?.uri ?? this.baseUrl + target;
    this.mutations++;
    if (change === 'deleted') {
      if (!existing) throw new Error(`simulator bug: delete of missing ${target}`);
      this.byTarget.delete(target);
      const i = this.position.get(target)!;
      const lastTarget = this.targets.pop()!;
      if (lastTarget !== target) {
        this.targets[i] = lastTarget;
        this.position.set(lastTarget, i);
      }
      this.position.delete(target);
      this.deleted.push({ target, extension: existing.extension });
      if (this.deleted.length > 1000) this.deleted.splice(0, this.deleted.length - 1000);
      return {
        uri,
        target,
        change,
        time,
        micros,
        legacy,
        deletedModified: existing.modified,
        ...(input.timelessDelete ? { timelessDelete: true } : {}),
      };
    }
    if ((change === 'created') !== (existing === undefined)) {
      throw new Error(`simulator bug: ${change} of ${existing ? 'existing' : 'missing'} ${target}`);
    }
    const bytes = input.bytes!;
    const hash = computeHashList(bytes, ['md5', 'sha-256']);
    const info: VersionInfo = {
      hash,
      sha256: hash[1]!.hex!,
      length: bytes.length,
      media: input.media!,
      modified: time,
    };
    const version: ResourceVersion = {
      ...info,
      info,
      target,
      uri,
      version: (existing?.version ?? 0) + 1,
      bytes,
      extension: input.extension ?? existing?.extension ?? '',
    };
    this.byTarget.set(target, version);
    if (!existing) {
      this.position.set(target, this.targets.length);
      this.targets.push(target);
      const d = this.deleted.findIndex((x) => x.target === target);
      if (d >= 0) this.deleted.splice(d, 1);
    }
    return { uri, target, change, time, micros, version: info, legacy };
  }
}
