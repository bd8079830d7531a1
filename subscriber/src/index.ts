// @rsnotify/subscriber public surface: the daemon (startSubscriber), its one-shot operations, the
// config schema, and the status shape.
export {
  startSubscriber,
  syncSource,
  auditSource,
  readStatus,
  unsubscribeSource,
} from './service.js';
export type { RunningSubscriber, StartOptions } from './service.js';
export {
  configSchema,
  resolveConfig,
  loadConfigFile,
  parseDuration,
  ConfigError,
} from './config.js';
export type { SubscriberConfig, ResolvedConfig, SourceConfig, HookConfig } from './config.js';
export type { SourceStatus } from './status/index.js';
export { discoverSource, pageFetcherFrom } from './discovery/index.js';
export type { Discovery, DiscoveredChannel, DiscoveryRoute } from './discovery/index.js';
// The URI -> file mapping of the mirror, for tools and tests that compare a mirror with a Source.
export { uriToMirrorPath, isTempFileName, locateFile } from './mirror/index.js';
// The DATA building blocks, for tools and benchmarks that drive them directly.
export { createHttpGetter, createMirror } from './mirror/index.js';
export type { HttpGetter, Mirror, ApplyResult, ResourceStateStore } from './mirror/index.js';
export { runBaseline } from './baseline/index.js';
export { collectChanges } from './catchup/index.js';
export { auditMirror } from './audit/index.js';
export type { AuditReport } from './audit/index.js';
// The daemon's JSON logger, for embedders and tests that inject their own destination.
export { createLogger } from './observability/index.js';
