// Every error code of @rsnotify/shared: the class that carries it and what it means. The code types
// of the error classes are derived from this table, so a code that is not listed does not compile.
import type { ErrorCatalog } from './base.js';

export const SHARED_ERRORS = {
  RS_XML_MALFORMED: { class: 'DocumentError', meaning: 'not well-formed XML' },
  RS_DOCTYPE_FORBIDDEN: { class: 'DocumentError', meaning: 'a DOCTYPE or ENTITY declaration' },
  RS_TOO_LARGE: { class: 'DocumentError', meaning: 'the document is over the size limit' },
  RS_UNKNOWN_ROOT: {
    class: 'DocumentError',
    meaning: 'the root is neither urlset nor sitemapindex',
  },
  RS_MISSING_ELEMENT: { class: 'DocumentError', meaning: 'a required element is missing' },
  RS_BAD_ATTRIBUTE: { class: 'DocumentError', meaning: 'an attribute value is not valid' },
  RS_BAD_DATETIME: {
    class: 'DocumentError|DateTimeError',
    meaning: 'not a W3C datetime (RC-28)',
  },
  RS_NOTIFICATION_INVALID: {
    class: 'DocumentError',
    meaning: 'not a valid change notification (RN-1..RN-3)',
  },
  RS_XML_NOT_UTF8: {
    class: 'DocumentError',
    meaning: 'bytes that are not valid UTF-8 (XML 1.0 well-formedness)',
  },
  RS_NAMESPACE_MISSING: {
    class: 'DocumentError',
    meaning: 'urlset or sitemapindex without the sitemap namespace (RN-1)',
  },
  RS_XML_TOO_DEEP: {
    class: 'DocumentError|XmlLimitError',
    meaning: 'element nesting over maxDepth',
  },
  RS_XML_TOO_MANY_ATTRIBUTES: {
    class: 'DocumentError|XmlLimitError',
    meaning: 'an element with more attributes than maxAttributes',
  },
  RS_XML_TOO_MANY_ELEMENTS: {
    class: 'DocumentError|XmlLimitError',
    meaning: 'a document with more elements than maxElements',
  },
  RS_XML_NAME_TOO_LONG: {
    class: 'DocumentError|XmlLimitError',
    meaning: 'a name over maxNameLength',
  },
  RS_XML_VALUE_TOO_LONG: {
    class: 'DocumentError|XmlLimitError',
    meaning: 'an attribute value over maxAttributeValueLength',
  },
  RS_XML_TEXT_TOO_LONG: {
    class: 'DocumentError|XmlLimitError',
    meaning: 'text over maxTextLength (maxLocLength inside loc)',
  },
  RSN_DISCOVERY_FAILED: {
    class: 'DiscoveryError',
    meaning: 'no Capability List found by any discovery route (RC-7..RC-10)',
  },
  RSN_OUTBOUND_PRIVATE_ADDRESS: {
    class: 'OutboundAddressError',
    meaning: 'an outbound request to a loopback, private or special address',
  },
  RSN_OUTBOUND_BAD_URL: {
    class: 'OutboundUrlError',
    meaning: 'an outbound URL that is not http(s) or cannot be parsed',
  },
} as const satisfies ErrorCatalog;

/** Every code of @rsnotify/shared. */
export type SharedErrorCode = keyof typeof SHARED_ERRORS;
