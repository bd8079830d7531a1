// errors/: the error base, the catalog of this package's codes, and the document refusal.
export * from './base.js';
export * from './catalog.js';
export * from './document-error.js';
