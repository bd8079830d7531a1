// The subscriber's durable state: tables (schema.ts), the repository contract in domain nouns
// (repository.ts), the SQLite engine (sqlite/), and the mirror's ResourceStateStore over it.
export * from './repository.js';
export { openSqliteStore, SqliteSubscriberStore, type OpenStoreOptions } from './sqlite/index.js';
export { createResourceStateStore } from './resource-state.js';
