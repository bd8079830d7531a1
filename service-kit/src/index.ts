export { type Clock, type Random, systemClock, systemRandom } from './clock.js';
export { parseDuration } from './duration.js';
export {
  ByteBudget,
  concatInSlices,
  drainRefused,
  readLimitedBody,
  readLimitedWebBody,
  REFUSED_BODY_DRAIN,
  UNREAD_BODY_DRAIN,
  type BodyRead,
  type BodyRefusalCode,
  type DrainBounds,
  type ReadBodyOptions,
} from './body-limit.js';
export { PART_BYTES, bodyParts, newPayloadId } from './body-parts.js';
export {
  SqliteBodyParts,
  STAGING_GRACE_MS,
  type PartsConnection,
  type PartsTables,
} from './sqlite-body-parts.js';
export { redactUrl, redactOptionalUrl, CALLBACK_LOG_SERIALIZERS } from './redact.js';
export {
  prepareDatabaseFile,
  ensureDatabaseDirectory,
  describeOpenFailure,
  DatabasePathError,
  DATABASE_FILE_MODE,
  DATABASE_DIR_MODE,
} from './db-file.js';
export { backoff, type BackoffOptions } from './backoff.js';
export { SERVICE_KIT_ERRORS, WaitTimeoutError, type ServiceKitErrorCode } from './errors.js';
export {
  GroupCommit,
  nextTurn,
  type FlushScheduler,
  type GroupCommitOptions,
} from './group-commit.js';
export {
  createEventLogger,
  LOG_LEVELS,
  type EventLogger,
  type LogEventMap,
  type LogLevelName,
  type LogLine,
  type LoggerOptions,
} from './logger.js';
export {
  ConfigError,
  convertOption,
  givenFlags,
  loadConfig,
  optionKey,
  readConfigFile,
  type ConfigInput,
  type ConfigOption,
  type ConfigOrigin,
  type ConfigValueKind,
  type LoadedConfig,
} from './config.js';
export { isCrossSiteRequest, type CrossSiteHeaders } from './cross-site.js';
export {
  answerClientErrors,
  clientErrorAnswer,
  clientErrorResponse,
  framingProblem,
  targetPath,
  type ClientErrorAnswer,
  type FramingProblem,
  type ClientErrorHooks,
} from './client-error.js';
export { answerText } from './plain-answer.js';
export { redactText } from './redact-text.js';
export { RecentAnswers } from './recent-answers.js';
export {
  startCheckpointer,
  CHECKPOINT_INTERVAL_MS,
  SQLITE_AUTOCHECKPOINT_PAGES,
  type CheckpointedConnection,
  type Checkpointer,
  type CheckpointerOptions,
} from './checkpointer.js';
