// @rsnotify/shared: the public surface. hub/ and subscriber/ import from here only.
export * from './errors/index.js';
export * from './time/index.js';
export * from './hashes/index.js';
export * from './links/index.js';
export * from './websub/index.js';
export * from './net/index.js';
export * from './documents/index.js';
export * from './discovery/index.js';
export {
  DEFAULT_XML_LIMITS,
  DEFAULT_STREAM_XML_LIMITS,
  XmlLimitError,
  decodeUtf8Strict,
  type XmlLimits,
} from './xml/index.js';
