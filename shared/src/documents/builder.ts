// Builds the document model from the namespace-aware XML events of xml/safe-parse.ts. One builder
// serves parseDocument (whole string) and streamDocument (chunks), so both produce identical
// objects. Entries are handed out one at a time as each `</url>` closes; nothing else is retained
// per entry, which is what keeps the streaming reader's memory flat.
import type { DateTime } from '../time/index.js';
import type { XmlHandler, XmlTag } from '../xml/index.js';
import {
  checkDateTime,
  readLink,
  readMetadata,
  resolveReference,
  type AttributeContext,
} from './attributes.js';
import { DocumentError } from './errors.js';
import { documentKind } from './kinds.js';
import {
  RS_NS,
  SITEMAP_NS,
  type DocumentKind,
  type Entry,
  type LinkElement,
  type Metadata,
  type ParseOptions,
  type ResourceSyncDocument,
  type RootElement,
  type XmlElement,
} from './model.js';

/** The document-level facts, known before the first entry (RS §7: `rs:md`/`rs:ln` precede entries). */
export interface DocumentHeader {
  readonly root: RootElement;
  readonly kind: DocumentKind;
  readonly capability: string;
  readonly md: Metadata;
  readonly links: readonly LinkElement[];
}

export interface BuilderEvents {
  header?(header: DocumentHeader): void;
  entry(entry: Entry): void;
  /**
   * The consumer only checks the document and keeps none of it: values that no rule can refuse
   * (hash lists, RC-26: an unparsable one is kept, never refused) are not decoded.
   */
  readonly checkOnly?: boolean;
}

interface OpenEntry {
  readonly line: number;
  loc?: string;
  /** null: read and found valid, but not kept (a check-only read); a second <lastmod> is not read. */
  lastmod?: DateTime | null;
  changefreq?: string;
  md?: Metadata;
  readonly links: LinkElement[];
  extraElements?: XmlElement[];
  extraAttributes?: Record<string, string>;
}

interface OpenElement {
  readonly name: string;
  readonly attributes: Record<string, string>;
  text: string;
  readonly children: XmlElement[];
}

type TextField = 'loc' | 'lastmod' | 'changefreq';

// RC-1: match by namespace URI. Sitemap elements without any namespace are tolerated (plain,
// sloppy sitemaps), rs elements are not: an `md` in another namespace is just an unknown element.
const isSitemapElement = (tag: XmlTag): boolean => tag.uri === SITEMAP_NS || tag.uri === '';
const isRs = (tag: XmlTag, local: string): boolean => tag.uri === RS_NS && tag.local === local;

function allAttributes(tag: XmlTag): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { name, value } of tag.attributes) out[name] = value;
  return out;
}

function finishElement(open: OpenElement): XmlElement {
  if (open.children.length === 0 && open.text !== '') {
    return {
      name: open.name,
      attributes: open.attributes,
      text: open.text,
      children: open.children,
    };
  }
  return { name: open.name, attributes: open.attributes, children: open.children };
}

export class DocumentBuilder implements XmlHandler {
  private depth = 0;
  private root: RootElement | undefined;
  private md: Metadata = {};
  private mdSeen = false;
  private readonly links: LinkElement[] = [];
  private readonly namespaces: Record<string, string> = {};
  private extraAttributes: Record<string, string> | undefined;
  private extraElements: XmlElement[] | undefined;
  private headerSent = false;
  private entryCount = 0;
  private entry: OpenEntry | undefined;
  private textField: TextField | undefined;
  private textBuffer = '';
  /** Elements we do not model, captured whole; `captureInto` receives the outermost one. */
  private readonly capture: OpenElement[] = [];
  private captureInto: XmlElement[] | undefined;
  /** Open elements being skipped (unknownElements 'skip'): nothing of them is stored. */
  private skipping = 0;
  /** Unknown elements skipped so far (with unknownElements 'skip'). */
  skippedElements = 0;

  constructor(
    private readonly options: ParseOptions,
    private readonly events: BuilderEvents,
  ) {}

  open(tag: XmlTag, line: number): void {
    const depth = this.depth++;
    if (this.skipping > 0) {
      this.skipping++;
      this.skippedElements++;
      return;
    }
    if (this.capture.length > 0) {
      this.capture.push({ name: tag.name, attributes: allAttributes(tag), text: '', children: [] });
      return;
    }
    if (depth === 0) return this.openRoot(tag, line);
    if (depth === 1) {
      if (isRs(tag, 'md') && !this.mdSeen) {
        this.mdSeen = true;
        this.md = readMetadata(tag, this.context(line));
      } else if (isRs(tag, 'ln')) {
        this.links.push(readLink(tag, this.context(line)));
      } else if (isSitemapElement(tag) && (tag.local === 'url' || tag.local === 'sitemap')) {
        this.sendHeader();
        this.entry = { line, links: [] };
        if (tag.attributes.length > 0) this.entry.extraAttributes = allAttributes(tag);
      } else {
        this.startCapture(tag, () => (this.extraElements ??= []));
      }
      return;
    }
    const entry = this.entry;
    if (depth === 2 && entry) {
      if (
        isSitemapElement(tag) &&
        (tag.local === 'loc' || tag.local === 'lastmod' || tag.local === 'changefreq') &&
        entry[tag.local] === undefined
      ) {
        this.textField = tag.local;
        this.textBuffer = '';
      } else if (isRs(tag, 'md') && entry.md === undefined) {
        entry.md = readMetadata(tag, this.context(line, this.entryCount));
      } else if (isRs(tag, 'ln')) {
        entry.links.push(readLink(tag, this.context(line, this.entryCount)));
      } else {
        this.startCapture(tag, () => (entry.extraElements ??= []));
      }
      return;
    }
    // Markup inside <loc>/<lastmod>/<changefreq> or inside rs:md/rs:ln: not ours, dropped.
    this.startCapture(tag);
  }

  close(_tag: XmlTag): void {
    const depth = --this.depth;
    if (this.skipping > 0) {
      this.skipping--;
      return;
    }
    if (this.capture.length > 0) {
      const done = finishElement(this.capture.pop()!);
      const parent = this.capture[this.capture.length - 1];
      if (parent) parent.children.push(done);
      else this.captureInto?.push(done);
      return;
    }
    if (depth === 2 && this.textField && this.entry) {
      this.closeTextField(this.entry, this.textField);
    } else if (depth === 1 && this.entry) {
      this.closeEntry(this.entry);
    }
  }

  text(text: string): void {
    if (this.skipping > 0) return;
    if (this.capture.length > 0) this.capture[this.capture.length - 1]!.text += text;
    else if (this.textField) this.textBuffer += text;
  }

  /** The whole document, once the reader has seen the end of the input. */
  document(entries: Entry[]): ResourceSyncDocument {
    const header = this.sendHeader();
    const doc: Record<string, unknown> = {
      kind: header.kind,
      root: header.root,
      capability: header.capability,
      md: this.md,
      links: this.links,
      entries,
      namespaces: this.namespaces,
    };
    if (this.extraAttributes) doc.extraAttributes = this.extraAttributes;
    if (this.extraElements) doc.extraElements = this.extraElements;
    return doc as unknown as ResourceSyncDocument;
  }

  /** Sends the header once (before the first entry, or at the end); returns it. */
  sendHeader(): DocumentHeader {
    const root = this.root;
    if (root === undefined) throw new DocumentError('RS_XML_MALFORMED', 'no root element');
    const capability = this.md.capability ?? '';
    const header: DocumentHeader = {
      root,
      kind: documentKind(root, capability),
      capability,
      md: this.md,
      links: [...this.links],
    };
    if (!this.headerSent) {
      this.headerSent = true;
      this.events.header?.(header);
    }
    return header;
  }

  private context(line: number, entry?: number): AttributeContext {
    const baseUrl = this.options.baseUrl;
    const checkOnly = this.events.checkOnly === true;
    return entry === undefined ? { line, baseUrl, checkOnly } : { line, baseUrl, entry, checkOnly };
  }

  private openRoot(tag: XmlTag, line: number): void {
    if (!isSitemapElement(tag) || (tag.local !== 'urlset' && tag.local !== 'sitemapindex')) {
      throw new DocumentError(
        'RS_UNKNOWN_ROOT',
        `not a ResourceSync document: root element <${tag.name}>${tag.uri ? ` in namespace ${tag.uri}` : ''} (line ${line})`,
        {
          details: { element: tag.name, namespace: tag.uri, line },
        },
      );
    }
    this.root = tag.local;
    for (const { name, value } of tag.attributes) {
      if (name === 'xmlns' || name.startsWith('xmlns:')) this.namespaces[name] = value;
      else (this.extraAttributes ??= {})[name] = value;
    }
  }

  /** `into` gives the list that keeps the element; none: the element is dropped (inside a text field). */
  private startCapture(tag: XmlTag, into?: () => XmlElement[]): void {
    if (into === undefined || this.options.unknownElements === 'skip') {
      // Dropped anyway, or not wanted: count it, store nothing of it or its descendants.
      this.skipping = 1;
      this.skippedElements++;
      return;
    }
    this.captureInto = into();
    this.capture.push({ name: tag.name, attributes: allAttributes(tag), text: '', children: [] });
  }

  private closeTextField(entry: OpenEntry, field: TextField): void {
    const value = this.textBuffer.trim();
    this.textField = undefined;
    this.textBuffer = '';
    if (field === 'loc') entry.loc = value;
    else if (field === 'changefreq') entry.changefreq = value;
    else {
      const ctx = this.context(entry.line, this.entryCount);
      entry.lastmod = checkDateTime(value, 'lastmod', undefined, ctx) ?? null;
    }
  }

  private closeEntry(open: OpenEntry): void {
    const index = this.entryCount++;
    this.entry = undefined;
    if (!open.loc) {
      throw new DocumentError(
        'RS_MISSING_ELEMENT',
        `entry ${index} (<${this.root === 'sitemapindex' ? 'sitemap' : 'url'}> at line ${open.line}) has no <loc>`,
        {
          details: { element: 'loc', entry: index, line: open.line },
        },
      );
    }
    const entry: Record<string, unknown> = {
      loc: resolveReference(open.loc, this.options.baseUrl),
    };
    if (open.lastmod) entry.lastmod = open.lastmod;
    if (open.changefreq !== undefined) entry.changefreq = open.changefreq;
    if (open.md) entry.md = open.md;
    entry.links = open.links;
    if (open.extraElements) entry.extraElements = open.extraElements;
    if (open.extraAttributes) entry.extraAttributes = open.extraAttributes;
    this.events.entry(entry as unknown as Entry);
  }
}
