// Typed reading and writing of `rs:md` and `rs:ln` attributes (RS §7, RC-2, RC-26..RC-29).
// RC-2: the defined attributes carry no prefix; anything else (prefixed extensions, non-spec names
// such as resync's `modified` on rs:md) is kept verbatim in `extra` so documents round-trip.
import {
  isPlainUtcDateTime,
  parseDateTime,
  parseSourceDateTime,
  type DateTime,
} from '../time/index.js';
import { formatHashList, parseHashList } from '../hashes/index.js';
import { escapeAttribute } from '../xml/index.js';
import type { XmlTag } from '../xml/index.js';
import { DocumentError } from './errors.js';
import { CHANGE_TYPES, RS_NS, type ChangeType, type LinkElement, type Metadata } from './model.js';

/** Where an attribute was read, for error messages and URL resolution. */
export interface AttributeContext {
  readonly line: number;
  readonly baseUrl?: string;
  /** 0-based index of the enclosing entry, when inside one. */
  readonly entry?: number;
  /** Only checking: values no rule refuses (hash lists, RC-26) are not decoded. */
  readonly checkOnly?: boolean;
}

const ABSOLUTE = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;

/** Resolves a relative reference against the document URL; absolute ones stay exactly as given. */
export function resolveReference(value: string, baseUrl: string | undefined): string {
  if (!baseUrl || value === '' || ABSOLUTE.test(value)) return value;
  try {
    return new URL(value, baseUrl).href;
  } catch {
    return value;
  }
}

function where(element: string, attribute: string, ctx: AttributeContext): string {
  const entry = ctx.entry === undefined ? '' : ` of entry ${ctx.entry}`;
  return `<${element}> @${attribute}${entry} (line ${ctx.line})`;
}

// Change List entries usually carry the same instant in <lastmod> and @datetime: remember the last
// value so the second one costs a string compare. DateTime objects are immutable, so sharing is safe.
let lastText: string | undefined;
let lastValue: DateTime | undefined;

/**
 * Times that describe one entry (`<lastmod>`, an entry's `rs:md` times) are read leniently: a time
 * without a zone is taken as UTC and marked `assumedUtc` (real Sources write them). Document-level
 * times, among them a notification's `from`/`until` (RN-5), stay strict.
 */
function isLenient(attribute: string | undefined, ctx: AttributeContext): boolean {
  return attribute === undefined || ctx.entry !== undefined;
}

export function readDateTime(
  value: string,
  element: string,
  attribute: string | undefined,
  ctx: AttributeContext,
): DateTime {
  const lenient = isLenient(attribute, ctx);
  if (value === lastText && (lenient || lastValue!.assumedUtc === undefined)) return lastValue!;
  try {
    const parsed = lenient ? parseSourceDateTime(value) : parseDateTime(value);
    lastText = value;
    lastValue = parsed;
    return parsed;
  } catch (err) {
    const place =
      attribute === undefined
        ? `<${element}>${ctx.entry === undefined ? '' : ` of entry ${ctx.entry}`} (line ${ctx.line})`
        : where(element, attribute, ctx);
    throw new DocumentError(
      'RS_BAD_DATETIME',
      `not a W3C datetime in ${place}: ${JSON.stringify(value)}`,
      {
        cause: err,
        details: { element, attribute, value, line: ctx.line, entry: ctx.entry },
      },
    );
  }
}

/**
 * readDateTime, or only its check where nothing keeps the value: an entry's time in a check-only
 * read (the document-level times stay read, RN-3 compares them). Undefined when only checked.
 */
export function checkDateTime(
  value: string,
  element: string,
  attribute: string | undefined,
  ctx: AttributeContext,
): DateTime | undefined {
  if (ctx.checkOnly && ctx.entry !== undefined && isPlainUtcDateTime(value)) return undefined;
  return readDateTime(value, element, attribute, ctx);
}

function badAttribute(
  element: string,
  attribute: string,
  value: string,
  ctx: AttributeContext,
  expected: string,
): DocumentError {
  return new DocumentError(
    'RS_BAD_ATTRIBUTE',
    `bad ${where(element, attribute, ctx)}: ${JSON.stringify(value)} (expected ${expected})`,
    {
      details: { element, attribute, value, line: ctx.line, entry: ctx.entry },
    },
  );
}

/** Digits only (ASCII, at least one), read without a regex: every entry's rs:md has a length. */
function isDigits(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) if ((text.charCodeAt(i) - 0x30) >>> 0 > 9) return false;
  return true;
}

function readLength(value: string, element: string, ctx: AttributeContext): number {
  const text = value.trim();
  const n = Number(text);
  if (!isDigits(text) || !Number.isSafeInteger(n))
    throw badAttribute(element, 'length', value, ctx, 'a non-negative integer');
  return n;
}

/** Is this attribute an xmlns declaration binding the element's own prefix to the rs namespace? */
function isOwnRsBinding(tag: XmlTag, name: string, value: string): boolean {
  return value === RS_NS && name === (tag.prefix ? `xmlns:${tag.prefix}` : 'xmlns');
}

/** Prefixed attributes and namespace declarations: not one of the rs attributes (RC-1). */
const isNamespaced = (name: string): boolean => name === 'xmlns' || name.includes(':');

export function readMetadata(tag: XmlTag, ctx: AttributeContext): Metadata {
  const md: Record<string, unknown> = {};
  let extra: Record<string, string> | undefined;
  const element = tag.name;
  for (const { name, value } of tag.attributes) {
    if (isNamespaced(name)) {
      if (!isOwnRsBinding(tag, name, value)) (extra ??= {})[name] = value;
      continue;
    }
    switch (name) {
      case 'capability':
      case 'type':
      case 'encoding':
      case 'path':
        md[name] = value;
        break;
      case 'at':
      case 'completed':
      case 'from':
      case 'until':
      case 'datetime': {
        const time = checkDateTime(value, element, name, ctx);
        if (time) md[name] = time;
        break;
      }
      case 'change':
        if (!(CHANGE_TYPES as readonly string[]).includes(value)) {
          throw badAttribute(element, 'change', value, ctx, CHANGE_TYPES.join(' | '));
        }
        md.change = value as ChangeType;
        break;
      case 'hash':
        if (!ctx.checkOnly) md.hash = parseHashList(value);
        break;
      case 'length':
        md.length = readLength(value, element, ctx);
        break;
      default:
        (extra ??= {})[name] = value;
    }
  }
  if (extra) md.extra = extra;
  return md as Metadata;
}

export function readLink(tag: XmlTag, ctx: AttributeContext): LinkElement {
  const ln: Record<string, unknown> = { rel: '', href: '' };
  let extra: Record<string, string> | undefined;
  const element = tag.name;
  for (const { name, value } of tag.attributes) {
    if (isNamespaced(name)) {
      if (!isOwnRsBinding(tag, name, value)) (extra ??= {})[name] = value;
      continue;
    }
    switch (name) {
      case 'rel':
      case 'type':
      case 'encoding':
      case 'path':
        ln[name] = value;
        break;
      case 'href':
        ln.href = resolveReference(value.trim(), ctx.baseUrl);
        break;
      case 'modified': {
        const time = checkDateTime(value, element, name, ctx);
        if (time) ln.modified = time;
        break;
      }
      case 'hash':
        if (!ctx.checkOnly) ln.hash = parseHashList(value);
        break;
      case 'length':
        ln.length = readLength(value, element, ctx);
        break;
      case 'pri': {
        // RC-29: a link we cannot interpret is ignored, not fatal: keep the raw value, no typed pri.
        const n = Number(value);
        if (isDigits(value.trim()) && n >= 1 && n <= 999_999) ln.pri = n;
        else (extra ??= {}).pri = value;
        break;
      }
      default:
        (extra ??= {})[name] = value;
    }
  }
  if (extra) ln.extra = extra;
  return ln as unknown as LinkElement;
}

function attr(name: string, value: string): string {
  return ` ${name}="${escapeAttribute(value)}"`;
}

function writeExtra(extra: Readonly<Record<string, string>> | undefined): string {
  let out = '';
  if (extra) for (const name in extra) out += attr(name, extra[name]!);
  return out;
}

/** The attributes of an `rs:md`, leading space included. */
export function formatMetadataAttributes(md: Metadata): string {
  let out = '';
  if (md.capability !== undefined) out += attr('capability', md.capability);
  if (md.change !== undefined) out += attr('change', md.change);
  if (md.at) out += attr('at', md.at.lexical);
  if (md.completed) out += attr('completed', md.completed.lexical);
  if (md.from) out += attr('from', md.from.lexical);
  if (md.until) out += attr('until', md.until.lexical);
  if (md.datetime) out += attr('datetime', md.datetime.lexical);
  if (md.hash) out += attr('hash', formatHashList(md.hash));
  if (md.length !== undefined) out += attr('length', String(md.length));
  if (md.type !== undefined) out += attr('type', md.type);
  if (md.encoding !== undefined) out += attr('encoding', md.encoding);
  if (md.path !== undefined) out += attr('path', md.path);
  return out + writeExtra(md.extra);
}

/** The attributes of an `rs:ln`, leading space included. */
export function formatLinkAttributes(ln: LinkElement): string {
  let out = attr('rel', ln.rel) + attr('href', ln.href);
  if (ln.pri !== undefined) out += attr('pri', String(ln.pri));
  if (ln.modified) out += attr('modified', ln.modified.lexical);
  if (ln.hash) out += attr('hash', formatHashList(ln.hash));
  if (ln.length !== undefined) out += attr('length', String(ln.length));
  if (ln.type !== undefined) out += attr('type', ln.type);
  if (ln.encoding !== undefined) out += attr('encoding', ln.encoding);
  if (ln.path !== undefined) out += attr('path', ln.path);
  return out + writeExtra(ln.extra);
}
