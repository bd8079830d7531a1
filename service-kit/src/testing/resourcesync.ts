// ResourceSync fixtures for tests, built over the shared document model and written by the shared
// serializer: a test says what a document holds (capability, from/until, entries) and gets XML that
// the parser reads back to the same model, instead of a hand-written template that can drift from
// the spec (RC-1 namespaces, RN-1..RN-3 change notifications).
import {
  documentKind,
  parseDateTime,
  parseHashList,
  serializeDocument,
  type ChangeType,
  type Entry,
  type LinkElement,
  type Metadata,
  type ResourceSyncDocument,
  type RootElement,
} from '@rsnotify/shared';

/** Times as text (`2026-01-01T00:00:00Z`), hashes as written (`md5:... sha-256:...`). */
export interface FixtureMetadata {
  readonly capability?: string;
  readonly at?: string;
  readonly completed?: string;
  readonly from?: string;
  readonly until?: string;
  readonly datetime?: string;
  readonly change?: ChangeType;
  readonly hash?: string;
  readonly length?: number;
  readonly type?: string;
}

export interface FixtureLink {
  readonly rel: string;
  readonly href: string;
  readonly type?: string;
}

export interface FixtureEntry extends Omit<FixtureMetadata, 'capability'> {
  readonly loc: string;
  readonly lastmod?: string;
  /** Entry-level `rs:md capability` (a Source Description's or Capability List's entries). */
  readonly capability?: string;
  readonly links?: readonly FixtureLink[];
}

export interface FixtureDocument {
  readonly capability: string;
  /** Default `urlset`. */
  readonly root?: RootElement;
  /** Document-level `rs:md` besides the capability. */
  readonly md?: Omit<FixtureMetadata, 'capability'>;
  readonly links?: readonly FixtureLink[];
  readonly entries?: readonly FixtureEntry[];
}

function metadata(md: FixtureMetadata): Metadata {
  const time = (v: string | undefined) => (v === undefined ? undefined : parseDateTime(v));
  const out: Record<string, unknown> = {
    capability: md.capability,
    at: time(md.at),
    completed: time(md.completed),
    from: time(md.from),
    until: time(md.until),
    datetime: time(md.datetime),
    change: md.change,
    hash: md.hash === undefined ? undefined : parseHashList(md.hash),
    length: md.length,
    type: md.type,
  };
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out as Metadata;
}

function links(list: readonly FixtureLink[] | undefined): LinkElement[] {
  return (list ?? []).map((l) => ({
    rel: l.rel,
    href: l.href,
    ...(l.type ? { type: l.type } : {}),
  }));
}

/** The document in the shared model. */
export function fixtureDocument(doc: FixtureDocument): ResourceSyncDocument {
  const root = doc.root ?? 'urlset';
  const entries: Entry[] = (doc.entries ?? []).map((e) => {
    const md = metadata(e);
    return {
      loc: e.loc,
      ...(e.lastmod ? { lastmod: parseDateTime(e.lastmod) } : {}),
      ...(Object.keys(md).length > 0 ? { md } : {}),
      links: links(e.links),
    };
  });
  return {
    kind: documentKind(root, doc.capability),
    root,
    capability: doc.capability,
    md: metadata({ ...doc.md, capability: doc.capability }),
    links: links(doc.links),
    entries,
    namespaces: {},
  };
}

/** The document as XML, written by the shared serializer. */
export function resourceSyncXml(doc: FixtureDocument): string {
  return serializeDocument(fixtureDocument(doc));
}

/** A change notification (RN-1..RN-3): `from`/`until` and change entries. */
export function changeNotificationXml(n: {
  readonly from: string;
  readonly until: string;
  readonly entries: readonly FixtureEntry[];
  readonly links?: readonly FixtureLink[];
}): string {
  return resourceSyncXml({
    capability: 'change-notification',
    md: { from: n.from, until: n.until },
    entries: n.entries,
    ...(n.links ? { links: n.links } : {}),
  });
}
