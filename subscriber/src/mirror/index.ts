// mirror/: everything that touches the mirror directory and fetches resources. The shared HTTP
// getter (also used by catchup/, baseline/, audit/ and CONTROL's discovery), the URI -> path mapping,
// the pure retry policy, the verifying atomic writer, the per-URI-ordered, parallel applier, and the
// start-up sweep of the temporaries a killed writer left.
export { createHttpGetter, headerValue } from './http.js';
export type {
  GetOptions,
  HttpGetter,
  HttpGetterOptions,
  HttpHeaders,
  HttpResponse,
  HttpStream,
} from './http.js';
export {
  escapeName,
  INDEX_FILE_NAME,
  isLeftoverTemp,
  isTempFileName,
  SELF_FILE_NAME,
  TEMP_FILE_PREFIX,
  uriToMirrorPath,
  type MirrorEntry,
} from './path.js';
export { sweepTempFiles, type TempSweep } from './sweep.js';
export { locateFile, removeFile } from './writer.js';
export { migrateMirrorLayout, type LayoutMigration, type RecordedPath } from './migrate.js';
export { decideRetry, isTransientNetworkError, parseRetryAfter } from './retry-policy.js';
export type { FetchOutcome, RetryDecision, RetryPolicyOptions } from './retry-policy.js';
export { createMirror } from './mirror.js';
export type { ApplyResult, Mirror, MirrorOptions, ResourceStateStore } from './mirror.js';
export { MirrorError } from './errors.js';
export type { MirrorErrorCode } from './errors.js';
