// Limits on the shape of a ResourceSync document, checked while it is parsed (never after), so a
// hostile or broken document is refused in time linear in its size. Element depth matters most:
// namespace resolution walks the open-tag stack for each element, so unbounded depth is quadratic.
// Each limit has its own stable code; the defaults are far above anything a real Source serves.
import { DocumentError, type DocumentErrorCode } from '../errors/index.js';

export interface XmlLimits {
  /** Nesting depth of elements (a Change List needs 4). RS_XML_TOO_DEEP. */
  readonly maxDepth: number;
  /** Attributes on one element, namespace declarations included. RS_XML_TOO_MANY_ATTRIBUTES. */
  readonly maxAttributes: number;
  /** Elements in the whole document (about 4 per entry). RS_XML_TOO_MANY_ELEMENTS. */
  readonly maxElements: number;
  /** Characters in an element or attribute name. RS_XML_NAME_TOO_LONG. */
  readonly maxNameLength: number;
  /** Characters in one attribute value. RS_XML_VALUE_TOO_LONG. */
  readonly maxAttributeValueLength: number;
  /** Characters in one text node anywhere but inside `loc`. RS_XML_TEXT_TOO_LONG. */
  readonly maxTextLength: number;
  /** Characters in a `loc` (a URL). RS_XML_TEXT_TOO_LONG. */
  readonly maxLocLength: number;
}

/** For documents read whole into memory (notifications, discovery documents). */
export const DEFAULT_XML_LIMITS: XmlLimits = {
  maxDepth: 64,
  maxAttributes: 64,
  maxElements: 4_000_000,
  maxNameLength: 1_024,
  maxAttributeValueLength: 65_536,
  maxTextLength: 65_536,
  maxLocLength: 65_536,
};

/** The streaming reader keeps memory flat, so it counts no elements unless told to. */
export const DEFAULT_STREAM_XML_LIMITS: XmlLimits = {
  ...DEFAULT_XML_LIMITS,
  maxElements: Number.POSITIVE_INFINITY,
};

export type XmlLimitCode = Extract<
  DocumentErrorCode,
  | 'RS_XML_TOO_DEEP'
  | 'RS_XML_TOO_MANY_ATTRIBUTES'
  | 'RS_XML_TOO_MANY_ELEMENTS'
  | 'RS_XML_NAME_TOO_LONG'
  | 'RS_XML_VALUE_TOO_LONG'
  | 'RS_XML_TEXT_TOO_LONG'
>;

/** A document refused for exceeding one of the XmlLimits; `limit` names it, `max` is its value. */
export class XmlLimitError extends DocumentError {
  declare readonly code: XmlLimitCode;
  readonly limit: keyof XmlLimits;
  readonly max: number;
  constructor(code: XmlLimitCode, limit: keyof XmlLimits, max: number, what: string, line: number) {
    super(code, `${what} exceeds the limit ${limit}=${max} (line ${line})`, {
      details: { limit, max, line },
    });
    this.name = 'XmlLimitError';
    this.limit = limit;
    this.max = max;
  }
}

export function resolveXmlLimits(
  base: XmlLimits,
  overrides: Partial<XmlLimits> | undefined,
): XmlLimits {
  if (!overrides) return base;
  const out: Record<string, number> = { ...base };
  for (const [k, v] of Object.entries(overrides)) if (typeof v === 'number' && v > 0) out[k] = v;
  return out as unknown as XmlLimits;
}
