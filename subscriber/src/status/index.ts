// status/: what `status` shows per source, built from the store (so the CLI can read a running
// daemon's database) plus, inside the daemon, the live ordering figures; and the status page's routes.
export {
  reconciliationRecord,
  type CatchUpStatus,
  type GapStatus,
  type ReconciliationStatus,
} from './activity.js';
export {
  formatStatus,
  representativeSubscription,
  sourceStatus,
  type LiveFigures,
  type SourceStatus,
} from './source-status.js';
export { createStatusRoutes, type StatusRouteDeps } from './routes.js';
