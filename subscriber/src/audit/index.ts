// audit/: read-only comparison of a mirror directory with the Source's Resource List (issue 5
// `audit NAME`): in sync, or what is missing, extra and different.
export { auditMirror, describeAudit } from './audit.js';
export type { AuditReport, RepairPlan } from './audit.js';
export { reconcileMirror, type ReconcileDeps, type ReconcileResult } from './reconcile.js';
