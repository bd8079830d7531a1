// cluster/: several hub processes on one PostgreSQL database. Delivery claims and wake-ups
// (coordinator), the once-per-cluster jobs (leader), cluster-once topic checks, the cluster metrics.
export { fairShareStep } from './ownership.js';
export { ClusterCoordinator, type CoordinatorOptions } from './coordinator.js';
export { ClusterLeader, type LeaderJobs } from './leader.js';
export { ClusterTopicChecker } from './topic-checks.js';
export { registerClusterMetrics } from './metrics.js';
