// ResourceSync documents: the model, parseDocument / serializeDocument, the strict notification
// parser the hub and subscriber use, the streaming reader for large lists, and small accessors.
export * from './model.js';
export * from './errors.js';
export * from './api.js';
