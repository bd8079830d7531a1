// The refusal of a document. It lives with the other errors (not in documents/) because the safe
// XML layer (xml/) raises it too, and xml/ sits below documents/.
import type { SHARED_ERRORS } from './catalog.js';
import { RsnotifyError, type CodesOf, type ErrorDetails } from './base.js';

/** Every refusal of a document (the DocumentError rows of SHARED_ERRORS). */
export type DocumentErrorCode = CodesOf<typeof SHARED_ERRORS, 'DocumentError'>;

export class DocumentError extends RsnotifyError<DocumentErrorCode> {
  constructor(
    code: DocumentErrorCode,
    message: string,
    options: { cause?: unknown; details?: ErrorDetails } = {},
  ) {
    super(code, message, options);
    this.name = 'DocumentError';
  }
}
