// baseline/: a full sync from the Resource List (or Index) into the mirror, positioned at the list's
// `at`; plus the streaming Resource List reader the audit shares.
export { runBaseline } from './run.js';
export type { BaselineOptions, BaselineResult } from './run.js';
export { BaselineError, readResourceList } from './resource-list.js';
export type { ResourceListEvent } from './resource-list.js';
