// The ResourceSync Source simulator for tests, benchmarks and the demo: a real HTTP Source
// on 127.0.0.1 with seeded random changes, change notifications posted to a hub, Change Lists with
// rollover and retention, and switchable faults.
export { startSourceSimulator } from './simulator.js';
export { SimulatorError } from './explicit-changes.js';
export type {
  SimulatorOptions,
  SourceSimulator,
  ExplicitChange,
  ResourceSnapshotEntry,
  MadeNotification,
  SimulatorStats,
} from './api.js';
export { startCaptureHub } from './capture-hub.js';
export type { CaptureHub, CapturedRequest } from './capture-hub.js';
export { defaultFaults, clearFaults, updateFaults } from './faults.js';
export type { Faults } from './faults.js';
export type { PostRecord, RetryPolicy } from './publisher.js';
export type { ListRequest } from './request-log.js';
export { encodePathSegment, encodeQueryComponent, canonicalTarget } from './names.js';
