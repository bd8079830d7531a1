// audit/: read-only comparison of a mirror directory with the Source's Resource List (the CLI's
// `audit NAME`): in sync, or what is missing, extra and different.
export { auditMirror, describeAudit } from './audit.js';
export type { AuditReport, RepairPlan } from './audit.js';
export { reconcileMirror, type ReconcileDeps, type ReconcileResult } from './reconcile.js';
