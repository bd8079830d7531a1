// The typed model of every ResourceSync document (RS §7-§13, RS-CN §3). One model for all kinds:
// the root element plus `rs:md/@capability` select the `kind`; attributes are typed; everything we
// do not model (unknown attributes, unknown elements, namespace declarations) is kept for round trips.
import type { XmlLimits } from '../xml/index.js';
import type { DateTime } from '../time/index.js';
import type { HashList } from '../hashes/index.js';

export const SITEMAP_NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';
export const RS_NS = 'http://www.openarchives.org/rs/terms/';

export type ChangeType = 'created' | 'updated' | 'deleted';
export const CHANGE_TYPES: readonly ChangeType[] = ['created', 'updated', 'deleted'];

/** A preserved element we do not model: enough to write it back as it was. */
export interface XmlElement {
  /** Qualified name as written (`xhtml:link`, `foo`). */
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  /** Text content (when the element has no element children). */
  readonly text?: string;
  readonly children: readonly XmlElement[];
}

/** `rs:md` attributes (RS §7). Attributes not modelled here go to `extra`, keyed as written. */
export interface Metadata {
  readonly capability?: string;
  readonly at?: DateTime;
  readonly completed?: DateTime;
  readonly from?: DateTime;
  readonly until?: DateTime;
  readonly datetime?: DateTime;
  readonly change?: ChangeType;
  readonly hash?: HashList;
  readonly length?: number;
  readonly type?: string;
  readonly encoding?: string;
  readonly path?: string;
  readonly extra?: Readonly<Record<string, string>>;
}

/** `rs:ln` (RS §7, §14). */
export interface LinkElement {
  readonly rel: string;
  readonly href: string;
  /** RC-29: 1..999999, lower preferred; absent means 999999. */
  readonly pri?: number;
  readonly modified?: DateTime;
  readonly hash?: HashList;
  readonly length?: number;
  readonly type?: string;
  readonly encoding?: string;
  readonly path?: string;
  readonly extra?: Readonly<Record<string, string>>;
}

/** A `<url>` (in a urlset) or `<sitemap>` (in a sitemapindex). */
export interface Entry {
  /** Absolute when the document was parsed with a `baseUrl` (relative `loc` tolerated). */
  readonly loc: string;
  readonly lastmod?: DateTime;
  readonly changefreq?: string;
  readonly md?: Metadata;
  readonly links: readonly LinkElement[];
  readonly extraElements?: readonly XmlElement[];
  /** Attributes on `<url>`/`<sitemap>` (RN-7: none expected), kept as written for round trips. */
  readonly extraAttributes?: Readonly<Record<string, string>>;
}

export type DocumentKind =
  | 'source-description'
  | 'source-description-index'
  | 'capability-list'
  | 'capability-list-index'
  | 'resource-list'
  | 'resource-list-index'
  | 'resource-dump'
  | 'resource-dump-index'
  | 'resource-dump-manifest'
  | 'change-list'
  | 'change-list-index'
  | 'change-dump'
  | 'change-dump-index'
  | 'change-dump-manifest'
  | 'change-notification'
  /** ResourceSync 1.0 Archives: capability `resourcelist-archive`, `changelist-archive`, ... */
  | 'archive'
  | 'archive-index'
  /** A plain sitemap (no `rs:md`, or a capability we do not know): kept, never an error. */
  | 'sitemap'
  | 'sitemap-index';

export type RootElement = 'urlset' | 'sitemapindex';

export interface ResourceSyncDocument<K extends DocumentKind = DocumentKind> {
  readonly kind: K;
  readonly root: RootElement;
  /** `rs:md/@capability` as written ('' when absent). */
  readonly capability: string;
  /** The document-level `rs:md`. */
  readonly md: Metadata;
  /** Document-level `rs:ln`. */
  readonly links: readonly LinkElement[];
  readonly entries: readonly Entry[];
  /** Namespace declarations on the root (`xmlns`, `xmlns:rs`, ...), for round trips. */
  readonly namespaces: Readonly<Record<string, string>>;
  /** Other root attributes and unknown top-level elements, for round trips. */
  readonly extraAttributes?: Readonly<Record<string, string>>;
  readonly extraElements?: readonly XmlElement[];
}

export type SourceDescription = ResourceSyncDocument<'source-description'>;
export type CapabilityList = ResourceSyncDocument<'capability-list'>;
export type ResourceList = ResourceSyncDocument<'resource-list'>;
export type ResourceListIndex = ResourceSyncDocument<'resource-list-index'>;
export type ChangeList = ResourceSyncDocument<'change-list'>;
export type ChangeListIndex = ResourceSyncDocument<'change-list-index'>;

/** A notification whose RN-1..RN-3 and RN-10 requirements were checked: from and until exist. */
export interface ChangeNotification extends ResourceSyncDocument<'change-notification'> {
  readonly from: DateTime;
  readonly until: DateTime;
}

/** A change-notification channel advertised in a Capability List (RA-1). */
export interface NotificationChannel {
  /** `<loc>`: the WebSub topic URI. */
  readonly topic: string;
  /** Every `rs:ln rel="hub"` href, in document order. */
  readonly hubs: readonly string[];
}

/** One change as a consumer needs it: where, what, when, and what the bytes should be. */
export interface Change {
  readonly uri: string;
  readonly change: ChangeType;
  /**
   * `rs:md/@datetime`, else `<lastmod>` of a created/updated entry (RS 1.0 used lastmod as the change
   * time, RC-25). A `deleted` entry without `datetime` has no change time: its `lastmod` is the
   * deleted resource's last modification, so document order alone places it (RC-23).
   */
  readonly time?: DateTime;
  /** `<lastmod>`: the resource's modification time (a mirror file's mtime). */
  readonly lastmod?: DateTime;
  readonly hash?: HashList;
  readonly length?: number;
  readonly type?: string;
}

/** Options for every parse entry point. */
export interface ParseOptions {
  /** The document's URL: relative `loc`/`href` resolve against it (fixtures README). */
  readonly baseUrl?: string;
  /** Refuse larger input with RS_TOO_LARGE. Default 52,428,800 (50 MiB, RC-4). */
  readonly maxBytes?: number;
  /** Shape limits checked while parsing (xml/limits.ts); unset fields keep their defaults. */
  readonly limits?: Partial<XmlLimits>;
  /**
   * Elements the model has no field for: 'keep' (the default) captures them in `extraElements` so a
   * document re-serialises whole; 'skip' only counts them, so a document of millions of unknown
   * elements costs no memory (the notification readers skip: the hub relays the bytes as received).
   */
  readonly unknownElements?: 'keep' | 'skip';
}
