import { RsnotifyError, type ErrorDetails } from '../errors/index.js';

/**
 * Every refusal of a document. Codes are stable: RS_XML_MALFORMED, RS_DOCTYPE_FORBIDDEN,
 * RS_TOO_LARGE, RS_UNKNOWN_ROOT, RS_MISSING_ELEMENT, RS_BAD_ATTRIBUTE, RS_BAD_DATETIME,
 * RS_NOTIFICATION_INVALID.
 */
export type DocumentErrorCode =
  | 'RS_XML_MALFORMED'
  | 'RS_DOCTYPE_FORBIDDEN'
  | 'RS_TOO_LARGE'
  | 'RS_UNKNOWN_ROOT'
  | 'RS_MISSING_ELEMENT'
  | 'RS_BAD_ATTRIBUTE'
  | 'RS_BAD_DATETIME'
  | 'RS_NOTIFICATION_INVALID';

export class DocumentError extends RsnotifyError {
  declare readonly code: DocumentErrorCode;
  constructor(code: DocumentErrorCode, message: string, options: { cause?: unknown; details?: ErrorDetails } = {}) {
    super(code, message, options);
    this.name = 'DocumentError';
  }
}
