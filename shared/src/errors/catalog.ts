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
