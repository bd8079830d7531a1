import { RsnotifyError, type ErrorDetails } from '@rsnotify/shared';
import type { SubscriberCodesOf } from '../errors/index.js';

/**
 * Every mirror failure code. Stable and searchable:
 * - RSN_PATH_ESCAPE: a URI whose mapping would leave mirrorDir (dot segments, '/' or '\' in a segment).
 * - RSN_PATH_UNMAPPABLE: a URI with no safe file name (not http(s), empty segment, control bytes, bad escapes).
 * - RSN_PATH_CONFLICT: the path is already used the other way round (a file where a directory is needed).
 * - RSN_HASH_MISMATCH / RSN_LENGTH_MISMATCH: the bytes fetched are not the ones the change announced.
 * - RSN_HTTP_STATUS: the Source answered with a status we do not retry (or stopped retrying).
 * - RSN_HTTP_TOO_LARGE: a body over the configured limit.
 * - RSN_FETCH_FAILED: a network error that outlived the retries.
 * - RSN_WRITE_FAILED: the file system refused the write.
 * - RSN_MIRROR_CLOSED: the mirror was closed (shutdown) before the change was applied.
 */
/** The `code` of a Node.js file-system error (ENOENT, ENOTDIR, ...), if it has one. */
export const errnoOf = (err: unknown): string | undefined => (err as NodeJS.ErrnoException).code;

export type MirrorErrorCode = SubscriberCodesOf<'MirrorError'>;

export class MirrorError extends RsnotifyError<MirrorErrorCode> {
  constructor(
    code: MirrorErrorCode,
    message: string,
    options: { cause?: unknown; details?: ErrorDetails } = {},
  ) {
    super(code, message, options);
    this.name = 'MirrorError';
  }
}
