// XML plumbing used by documents/: the safe reader (DOCTYPE refused, size limits, namespaces) and
// escaping for the serialiser. Not part of the package's public surface.
export * from './safe-parse.js';
export * from './namespaces.js';
export * from './escape.js';
export * from './limits.js';
export * from './utf8.js';
export * from './prolog.js';
export * from './common-subset.js';
