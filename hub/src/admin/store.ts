// The operator console's view of the store (AdminStore and its records) is declared with the engines
// that implement it (store/admin-contract.ts); admin/ uses it under this name.
export type {
  AdminStore,
  AdminTokenRecord,
  ClusterCounters,
  GivenUpRecord,
  RejectionRecord,
  SubscriptionDeliveryRow,
  TopicStats,
} from '../store/index.js';
