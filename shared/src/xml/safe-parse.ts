// The full XML reader: saxes in plain mode with namespaces resolved by namespaces.ts (RC-1:
// elements are matched by namespace URI), with the safety rules every entry point shares. A document
// of one slice is offered to common-subset.ts first; one read there gets this reader's events. A DOCTYPE
// is refused before parsing (prolog.ts); saxes itself never expands DTD entities, and its `doctype`
// event is the backstop.
// Well-formedness is checked in the same single pass (no separate validator run).
import { SaxesParser } from 'saxes';
import { DocumentError } from '../errors/index.js';
import { DEFAULT_XML_LIMITS, XmlLimitError, type XmlLimitCode, type XmlLimits } from './limits.js';
import { ROOT_BINDINGS, resolveTag, type XmlAttribute, type XmlTag } from './namespaces.js';
import { doctypeForbidden } from './prolog.js';

/** RC-4: the community limit of 50 MB per document, as bytes (50 MiB). */
export const DEFAULT_MAX_BYTES = 52_428_800;

/** What a document builder receives; `line` is 1-based, for messages. */
export interface XmlHandler {
  open(tag: XmlTag, line: number): void;
  close(tag: XmlTag): void;
  text(text: string): void;
}

/** UTF-8 size of a string without encoding it when the answer is clear from its length. */
export function exceedsBytes(text: string, maxBytes: number): boolean {
  if (text.length > maxBytes) return true;
  if (text.length * 3 <= maxBytes) return false;
  return Buffer.byteLength(text, 'utf8') > maxBytes;
}

export function tooLarge(bytes: number | undefined, maxBytes: number): DocumentError {
  return new DocumentError('RS_TOO_LARGE', `document larger than ${maxBytes} bytes`, {
    details: { maxBytes, bytes },
  });
}

/** Input is fed to saxes in slices of this many characters (see XmlReader.write). */
const WRITE_SLICE = 64 * 1024;

/** RN-1, RC-1: a `urlset`/`sitemapindex` root without any namespace is refused (another one is RS_UNKNOWN_ROOT). */
const SITEMAP_NAMESPACE = 'http://www.sitemaps.org/schemas/sitemap/0.9';

function namespaceMissing(tag: XmlTag, line: number): DocumentError {
  return new DocumentError(
    'RS_NAMESPACE_MISSING',
    `root element <${tag.name}> is not in the sitemap namespace ${SITEMAP_NAMESPACE} (RN-1, line ${line})`,
    {
      details: { element: tag.name, namespace: tag.uri, line },
    },
  );
}

/**
 * saxes keeps each handler `on()` sets as a property added after construction. On SaxesParser
 * itself the eighth such property turned the parser into a dictionary-mode object (V8), and every
 * character then cost about 3x (test/bench "notification check": 134 against 42 µs per
 * notification). Instances of a subclass are laid out with room to spare and stay fast.
 */
class ReaderParser extends SaxesParser<{ xmlns: false; position: true }> {}

/**
 * An incremental, namespace-aware reader; errors become RS_XML_MALFORMED / RS_DOCTYPE_FORBIDDEN, and
 * every XmlLimits bound is checked as the tags arrive: depth, names and attributes when a tag is
 * complete, text when its node ends, and anything still being gathered after each input slice.
 */
export class XmlReader {
  private readonly parser: ReaderParser;
  private elements = 0;
  /** The attributes of the start tag being read. */
  private attributes: XmlAttribute[] = [];
  /** The open elements: their bindings, and `loc` text told from other text. */
  private readonly open: XmlTag[] = [];

  constructor(
    handler: XmlHandler,
    private readonly limits: XmlLimits = DEFAULT_XML_LIMITS,
  ) {
    const parser = new ReaderParser({ xmlns: false, position: true });
    this.parser = parser;
    const refuse = (code: XmlLimitCode, limit: keyof XmlLimits, what: string): never => {
      throw new XmlLimitError(code, limit, limits[limit], what, parser.line);
    };
    const text = (value: string): void => {
      const inLoc = this.open.length > 0 && this.open[this.open.length - 1]!.local === 'loc';
      if (inLoc ? value.length > limits.maxLocLength : value.length > limits.maxTextLength) {
        refuse(
          'RS_XML_TEXT_TOO_LONG',
          inLoc ? 'maxLocLength' : 'maxTextLength',
          `text of ${value.length} characters`,
        );
      }
      handler.text(value);
    };
    // Attributes are collected as saxes reads them, in document order: an array walked once each by
    // the limits, the namespace resolution and the builder, where saxes's own per-tag record is a
    // prototype-less dictionary that each for-in had to enumerate afresh.
    parser.on('attribute', (attribute) => {
      this.attributes.push(attribute);
    });
    parser.on('opentag', ({ name: tagName }) => {
      const attributes = this.attributes;
      this.attributes = [];
      if (this.open.length >= limits.maxDepth)
        refuse('RS_XML_TOO_DEEP', 'maxDepth', `element depth ${this.open.length + 1}`);
      if (++this.elements > limits.maxElements)
        refuse('RS_XML_TOO_MANY_ELEMENTS', 'maxElements', `element count ${this.elements}`);
      if (tagName.length > limits.maxNameLength)
        refuse(
          'RS_XML_NAME_TOO_LONG',
          'maxNameLength',
          `element name of ${tagName.length} characters`,
        );
      if (attributes.length > limits.maxAttributes)
        refuse(
          'RS_XML_TOO_MANY_ATTRIBUTES',
          'maxAttributes',
          `attribute count ${limits.maxAttributes + 1}`,
        );
      for (let i = 0; i < attributes.length; i++) {
        const { name, value } = attributes[i]!;
        if (name.length > limits.maxNameLength)
          refuse(
            'RS_XML_NAME_TOO_LONG',
            'maxNameLength',
            `attribute name of ${name.length} characters`,
          );
        if (value.length > limits.maxAttributeValueLength) {
          refuse(
            'RS_XML_VALUE_TOO_LONG',
            'maxAttributeValueLength',
            `attribute value of ${value.length} characters`,
          );
        }
      }
      const parent =
        this.open.length > 0 ? this.open[this.open.length - 1]!.bindings : ROOT_BINDINGS;
      const tag = resolveTag(tagName, attributes, parent, parser.xmlDecl.version === '1.1');
      if (typeof tag === 'string') {
        parser.fail(tag);
        return;
      }
      if (
        this.open.length === 0 &&
        (tag.local === 'urlset' || tag.local === 'sitemapindex') &&
        tag.uri === ''
      ) {
        throw namespaceMissing(tag, parser.line);
      }
      this.open.push(tag);
      handler.open(tag, parser.line);
    });
    parser.on('closetag', () => {
      handler.close(this.open.pop()!);
    });
    parser.on('processinginstruction', (pi) => {
      // Namespaces in XML: no colon in a PI target (saxes checks names only in namespace mode).
      if (pi.target.includes(':'))
        parser.fail(`malformed processing instruction target: ${pi.target}.`);
    });
    parser.on('text', text);
    parser.on('cdata', text);
    parser.on('doctype', () => {
      throw doctypeForbidden(parser.line);
    });
    parser.on('error', (err) => {
      throw new DocumentError('RS_XML_MALFORMED', `malformed XML: ${err.message}`, {
        cause: err,
        details: { line: parser.line, column: parser.column },
      });
    });
  }

  /**
   * Feeds input in slices; after each, the text, attribute value or name saxes is still gathering
   * is checked against the largest limit that could apply, so an 8 MB value is refused after about
   * one slice past its limit instead of after all of it has been read.
   */
  write(text: string): void {
    if (text.length <= WRITE_SLICE) {
      this.parser.write(text);
      this.checkPending();
      return;
    }
    for (let i = 0; i < text.length; i += WRITE_SLICE) {
      this.parser.write(text.slice(i, i + WRITE_SLICE));
      this.checkPending();
    }
  }

  private checkPending(): void {
    // saxes keeps the unfinished text or attribute value in `text`, an unfinished name in `name`,
    // the attributes of an unfinished tag in `attribList`.
    const pending = this.parser as unknown as {
      text: string;
      name: string;
      attribList: readonly unknown[];
    };
    const l = this.limits;
    if (pending.attribList.length > l.maxAttributes) {
      throw new XmlLimitError(
        'RS_XML_TOO_MANY_ATTRIBUTES',
        'maxAttributes',
        l.maxAttributes,
        `attribute count ${pending.attribList.length}`,
        this.parser.line,
      );
    }
    if (
      pending.text.length > Math.max(l.maxTextLength, l.maxLocLength, l.maxAttributeValueLength)
    ) {
      throw new XmlLimitError(
        'RS_XML_TEXT_TOO_LONG',
        'maxTextLength',
        l.maxTextLength,
        `text or value of more than ${pending.text.length} characters`,
        this.parser.line,
      );
    }
    if (pending.name.length > l.maxNameLength) {
      throw new XmlLimitError(
        'RS_XML_NAME_TOO_LONG',
        'maxNameLength',
        l.maxNameLength,
        `a name of more than ${pending.name.length} characters`,
        this.parser.line,
      );
    }
  }

  /** Ends the input: an unclosed element or a missing root is RS_XML_MALFORMED. */
  close(): void {
    this.parser.close();
  }
}
