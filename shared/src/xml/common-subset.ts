// A fast path for the XML nearly every notification is written in, checked without saxes. saxes
// reads a character per state-machine step and cost as much per notification as the hub's whole
// HTTP layer (test/bench "notification check"). This reader accepts only a strict subset of XML 1.0:
//
// - an optional XML declaration at the very start: version 1.0, UTF-8, standalone yes or no;
// - elements and attributes with ASCII names, attribute values in quotes right after the `=`;
// - text and values of characters U+0009, U+000A, U+0020-U+D7FF and U+E000-U+FFFD, with the five
//   predefined entities (`&amp;` `&lt;` `&gt;` `&quot;` `&apos;`);
// - whitespace between the markup; nothing else outside the root element.
//
// Anything else (a comment, a processing instruction, CDATA, a DOCTYPE, a character reference, a
// carriage return, a tab or newline in a value, an astral character, a name outside ASCII), and
// anything the full reader would refuse (malformed or not namespace-well-formed markup, an XmlLimits
// bound reached) ends the fast path with `undefined`, and the caller reads the document with the full
// reader (safe-parse.ts) from the start, which gives its verdict and its message. So a document is
// either read here with exactly the events the full reader would give (the same tags, text runs and
// lines: xml-common-subset.test.ts holds the two to that over the fixtures and their mutations), or
// not read here at all. Namespaces are resolved by the same resolveTag.
import type { XmlLimits } from './limits.js';
import { ROOT_BINDINGS, resolveTag, type XmlAttribute, type XmlTag } from './namespaces.js';
import type { XmlHandler } from './safe-parse.js';

/** A document read by readCommonSubset: its events, replayed into a handler by replayCommonSubset. */
export interface CommonSubsetDocument {
  /** A start tag, a text run, or null for an end tag, in document order. */
  readonly events: readonly (XmlTag | string | null)[];
  /** The line of each start tag's `>`, in order: the line saxes reports for it. */
  readonly lines: readonly number[];
}

// version, then encoding, then standalone, each in quotes with no space around the `=` (XML 1.0 §2.8).
const XML_DECLARATION =
  /^<\?xml[ \t\n]+version=(?:"1\.0"|'1\.0')(?:[ \t\n]+encoding=(?:"[Uu][Tt][Ff]-?8"|'[Uu][Tt][Ff]-?8'))?(?:[ \t\n]+standalone=(?:"(?:yes|no)"|'(?:yes|no)'))?[ \t\n]*\?>/;

/**
 * Any character outside the subset: controls but tab and newline, CR (the full reader turns CR LF
 * into LF), surrogates (astral characters), U+FFFE and U+FFFF. One native regular expression over
 * the whole input costs a third of a charCodeAt loop here.
 */
const OUTSIDE_SUBSET = /[^\t\n\x20-\ud7ff\ue000-\ufffd]/;

const GT = 0x3e;
const SLASH = 0x2f;
const EQUALS = 0x3d;
const NL = 0x0a;

const isSpace = (c: number): boolean => c === 0x20 || c === NL || c === 0x09;

/** ASCII NameStartChar (XML 1.0 §2.3): letters, `_` and `:`. */
const isNameStart = (c: number): boolean =>
  (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c === 0x3a;

/** ASCII NameChar: a NameStartChar, a digit, `-` or `.`. */
const isNameChar = (c: number): boolean =>
  isNameStart(c) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e;

/** The end of the name starting at `at` (its first character checked by the caller). */
function nameEnd(xml: string, at: number): number {
  // Loops stop at the length: charCodeAt past it gives NaN, and a loop that can see a NaN is
  // compiled for doubles, several times slower per character.
  const n = xml.length;
  let j = at + 1;
  while (j < n && isNameChar(xml.charCodeAt(j))) j++;
  return j;
}

/** The first `needle` at or after `from` (the length if none); `known` is reused while still ahead. */
function nextIndex(xml: string, needle: string, from: number, known: number): number {
  if (known >= from) return known;
  const at = xml.indexOf(needle, from);
  return at === -1 ? xml.length : at;
}

/** The character a predefined entity reference at `at` (its `&`) stands for, and its length. */
function predefinedEntity(xml: string, at: number): readonly [string, number] | undefined {
  switch (xml.charCodeAt(at + 1)) {
    case 0x61: // a
      if (xml.startsWith('amp;', at + 1)) return ['&', 5];
      if (xml.startsWith('apos;', at + 1)) return ["'", 6];
      return undefined;
    case 0x6c: // l
      return xml.startsWith('lt;', at + 1) ? ['<', 4] : undefined;
    case 0x67: // g
      return xml.startsWith('gt;', at + 1) ? ['>', 4] : undefined;
    case 0x71: // q
      return xml.startsWith('quot;', at + 1) ? ['"', 6] : undefined;
    default:
      return undefined;
  }
}

/**
 * The characters from `from` to `to` with their entity references replaced, the first `&` being at
 * `amp`; undefined for a reference that is not a predefined entity. A reference cannot run past
 * `to`, which is a `<` or a quote: neither is in an entity's name.
 */
function decodeEntities(xml: string, from: number, to: number, amp: number): string | undefined {
  let out = '';
  while (amp < to) {
    const entity = predefinedEntity(xml, amp);
    if (entity === undefined) return undefined;
    out += xml.slice(from, amp) + entity[0];
    from = amp + entity[1];
    amp = nextIndex(xml, '&', from, -1);
  }
  return out + xml.slice(from, to);
}

/** Reads `xml` if it is in the common subset and within `limits`; undefined sends it to the full reader. */
export function readCommonSubset(xml: string, limits: XmlLimits): CommonSubsetDocument | undefined {
  if (OUTSIDE_SUBSET.test(xml)) return undefined;
  const events: (XmlTag | string | null)[] = [];
  const lines: number[] = [];
  const open: XmlTag[] = [];
  const n = xml.length;
  let i = 0;
  let elements = 0;
  let rootClosed = false;
  // Where each of these characters next occurs, found by indexOf as the reading passes them.
  let nextLt = -1;
  let nextAmp = -1;
  let nextTab = -1;
  let nextNewline = -1;
  let nextCdataEnd = -1;
  // Lines are counted up to `counted` (newlines before it), when a start tag needs its line.
  let line = 1;
  let counted = 0;
  let newline = -1;

  if (xml.startsWith('<?xml', 0)) {
    const declaration = XML_DECLARATION.exec(xml);
    if (declaration === null) return undefined;
    i = declaration[0].length;
  }

  while (i < n) {
    nextLt = nextIndex(xml, '<', i, nextLt);
    if (nextLt > i) {
      // A text run, up to the next `<` (the full reader hands each run to the handler whole).
      const end = nextLt;
      nextAmp = nextIndex(xml, '&', i, nextAmp);
      const text = nextAmp < end ? decodeEntities(xml, i, end, nextAmp) : xml.slice(i, end);
      if (text === undefined) return undefined;
      // `]]>` may not stand in text (XML 1.0 §2.4).
      if ((nextCdataEnd = nextIndex(xml, ']]>', i, nextCdataEnd)) < end) return undefined;
      const inLoc = open.length > 0 && open[open.length - 1]!.local === 'loc';
      if (text.length > (inLoc ? limits.maxLocLength : limits.maxTextLength)) return undefined;
      // Only whitespace may stand outside the root element.
      if (open.length === 0)
        for (let k = i; k < end; k++) if (!isSpace(xml.charCodeAt(k))) return undefined;
      events.push(text);
      i = end;
      continue;
    }

    if (i + 1 < n && xml.charCodeAt(i + 1) === SLASH) {
      // An end tag: the name of the open element, optional whitespace, `>`.
      const tag = open.pop();
      if (tag === undefined || !xml.startsWith(tag.name, i + 2)) return undefined;
      let j = i + 2 + tag.name.length;
      while (j < n && isSpace(xml.charCodeAt(j))) j++;
      if (j === n || xml.charCodeAt(j) !== GT) return undefined;
      events.push(null);
      if (open.length === 0) rootClosed = true;
      i = j + 1;
      continue;
    }

    // A start tag (`<!` and `<?` end here: `!` and `?` start no name).
    if (rootClosed || i + 1 === n || !isNameStart(xml.charCodeAt(i + 1))) return undefined;
    let j = nameEnd(xml, i + 1);
    const name = xml.slice(i + 1, j);
    if (name.length > limits.maxNameLength) return undefined;
    const attributes: XmlAttribute[] = [];
    let selfClosing = false;
    for (;;) {
      const spaced = j < n && isSpace(xml.charCodeAt(j));
      while (j < n && isSpace(xml.charCodeAt(j))) j++;
      if (j === n) return undefined;
      const c = xml.charCodeAt(j);
      if (c === GT) break;
      if (c === SLASH) {
        if (j + 1 === n || xml.charCodeAt(j + 1) !== GT) return undefined;
        selfClosing = true;
        j++;
        break;
      }
      // An attribute: whitespace before it, then name="value" or name='value'.
      if (!spaced || !isNameStart(c)) return undefined;
      const nameStart = j;
      j = nameEnd(xml, j);
      const attributeName = xml.slice(nameStart, j);
      if (j + 1 >= n || xml.charCodeAt(j) !== EQUALS) return undefined;
      const quote = xml.charCodeAt(j + 1);
      if (quote !== 0x22 && quote !== 0x27) return undefined;
      const from = j + 2;
      const end = xml.indexOf(quote === 0x22 ? '"' : "'", from);
      if (end === -1) return undefined;
      // No `<` in a value; a tab or newline would be normalised to a space by the full reader.
      if ((nextLt = nextIndex(xml, '<', from, nextLt)) < end) return undefined;
      if ((nextTab = nextIndex(xml, '\t', from, nextTab)) < end) return undefined;
      if ((nextNewline = nextIndex(xml, '\n', from, nextNewline)) < end) return undefined;
      nextAmp = nextIndex(xml, '&', from, nextAmp);
      const value = nextAmp < end ? decodeEntities(xml, from, end, nextAmp) : xml.slice(from, end);
      if (
        value === undefined ||
        attributeName.length > limits.maxNameLength ||
        value.length > limits.maxAttributeValueLength ||
        attributes.length === limits.maxAttributes
      )
        return undefined;
      for (let k = 0; k < attributes.length; k++)
        if (attributes[k]!.name === attributeName) return undefined;
      attributes.push({ name: attributeName, value });
      j = end + 1;
    }
    // `j` is at the tag's `>`: its line is the one saxes reports.
    for (; counted <= j; counted = newline + 1) {
      newline = nextIndex(xml, '\n', counted, newline);
      if (newline > j) break;
      line++;
    }
    counted = j + 1;

    if (open.length >= limits.maxDepth || ++elements > limits.maxElements) return undefined;
    const parent = open.length > 0 ? open[open.length - 1]!.bindings : ROOT_BINDINGS;
    const tag = resolveTag(name, attributes, parent, false);
    if (typeof tag === 'string') return undefined;
    // A root `urlset`/`sitemapindex` in no namespace: the full reader's RS_NAMESPACE_MISSING.
    if (
      open.length === 0 &&
      tag.uri === '' &&
      (tag.local === 'urlset' || tag.local === 'sitemapindex')
    )
      return undefined;
    events.push(tag);
    lines.push(line);
    if (selfClosing) {
      events.push(null);
      if (open.length === 0) rootClosed = true;
    } else {
      open.push(tag);
    }
    i = j + 1;
  }
  if (!rootClosed) return undefined;
  return { events, lines };
}

/** Hands a document read by readCommonSubset to a handler, as the full reader would have. */
export function replayCommonSubset(document: CommonSubsetDocument, handler: XmlHandler): void {
  const open: XmlTag[] = [];
  let tags = 0;
  for (const event of document.events) {
    if (event === null) handler.close(open.pop()!);
    else if (typeof event === 'string') handler.text(event);
    else {
      open.push(event);
      handler.open(event, document.lines[tags++]!);
    }
  }
}
