import { RsnotifyError, type ErrorDetails } from '../errors/index.js';

/**
 * Every refusal of a document. Codes are stable: RS_XML_MALFORMED, RS_DOCTYPE_FORBIDDEN,
 * RS_TOO_LARGE, RS_UNKNOWN_ROOT, RS_MISSING_ELEMENT, RS_BAD_ATTRIBUTE, RS_BAD_DATETIME,
 * RS_NOTIFICATION_INVALID; hostile input: RS_XML_NOT_UTF8, RS_NAMESPACE_MISSING, RS_XML_TOO_DEEP,
 * RS_XML_TOO_MANY_ATTRIBUTES, RS_XML_TOO_MANY_ELEMENTS, RS_XML_NAME_TOO_LONG, RS_XML_VALUE_TOO_LONG,
 * RS_XML_TEXT_TOO_LONG.
 */
export type DocumentErrorCode =
  | 'RS_XML_MALFORMED'
  | 'RS_DOCTYPE_FORBIDDEN'
  | 'RS_TOO_LARGE'
  | 'RS_UNKNOWN_ROOT'
  | 'RS_MISSING_ELEMENT'
  | 'RS_BAD_ATTRIBUTE'
  | 'RS_BAD_DATETIME'
  | 'RS_NOTIFICATION_INVALID'
  // Hostile or broken input, refused while parsing (xml/limits.ts, xml/utf8.ts):
  | 'RS_XML_NOT_UTF8'
  | 'RS_NAMESPACE_MISSING'
  | 'RS_XML_TOO_DEEP'
  | 'RS_XML_TOO_MANY_ATTRIBUTES'
  | 'RS_XML_TOO_MANY_ELEMENTS'
  | 'RS_XML_NAME_TOO_LONG'
  | 'RS_XML_VALUE_TOO_LONG'
  | 'RS_XML_TEXT_TOO_LONG';

export class DocumentError extends RsnotifyError {
  declare readonly code: DocumentErrorCode;
  constructor(code: DocumentErrorCode, message: string, options: { cause?: unknown; details?: ErrorDetails } = {}) {
    super(code, message, options);
    this.name = 'DocumentError';
  }
}
