// The simulator's public types: options, the SourceSimulator contract and what it
// reports. The implementation is simulator.ts.
import type { ListRequest } from './request-log.js';
import type { ChangeType } from '@rsnotify/shared';
import type { Faults } from './faults.js';
import type { PostRecord, PublisherStats, RetryPolicy } from './publisher.js';

export interface SimulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (ephemeral). */
  port?: number;
  /** Fixes the resources, the changes and the fault decisions (default 1). */
  seed?: number;
  /** Resources that exist before the Change Lists begin (default 20). */
  initialResources?: number;
  /** The size random changes drift towards (default max(initialResources, 100)). */
  targetResources?: number;
  hubUrl?: string;
  /** A Source that only publishes Change Lists: no notifications, no channel advertised, setHub ignored. */
  listOnly?: boolean;
  /** The Source's hub token, sent as `Authorization: Bearer` (RT-5). */
  token?: string;
  /** Resources per Resource List; above it /resourcelist.xml is an index (default 1000). */
  pageSize?: number;
  /** A Change List closes once it holds this many entries (default 1000). */
  changeListMaxEntries?: number;
  /** ... or once it has been open this long with entries (default 60 s). */
  changeListMaxAgeMs?: number;
  /** Closed Change Lists are dropped this long after closing (default 5 min). */
  retentionMs?: number;
  /** RN-13: larger batches are split into consecutive notifications (default 100). */
  maxEntriesPerNotification?: number;
  /** Initial value of faults.specVersion (default '1.1'). */
  specVersion?: '1.0' | '1.1';
  /** Automatic mode: one batch per interval (default 100 ms). */
  batchIntervalMs?: number;
  /** Automatic mode: probability that a batch is a burst (default 0.02), and its size factor (default 10). */
  burstProbability?: number;
  burstFactor?: number;
  /** Probability a change hits a URI changed earlier in the same batch (default 0.15). */
  repeatProbability?: number;
  /** Probability a new resource gets an odd name (default 0.5). */
  oddNames?: number;
  /** Typical upper bound of a resource body in bytes (default 2048). */
  typicalMaxBytes?: number;
  /** RT-3: the topic serves the latest notification ('latest', default) or nothing ('empty'). */
  topicBody?: 'latest' | 'empty';
  /** Resource List snapshots kept for index parts (default 16). */
  resourceListSnapshots?: number;
  /** Wall clock in ms (default Date.now). Change times, rollover and retention follow it. */
  clock?: () => number;
  retry?: Partial<RetryPolicy>;
  faults?: Partial<Faults>;
  /** Structured events (`notification.post_failed`, ...); nothing is logged without it. */
  log?: (event: string, fields: Record<string, unknown>) => void;
}

/** One explicit change for makeChanges(): a decoded path below /resources/, or a raw encoded target. */
export interface ExplicitChange {
  readonly change: ChangeType;
  /** Decoded, '/'-separated path below `/resources/`, e.g. `docs/a b.txt`. */
  readonly path?: string;
  readonly query?: readonly (readonly [string, string])[];
  /** A verbatim encoded target (for hostile names), e.g. `/resources/..%2F..%2Fescape.txt`. */
  readonly rawTarget?: string;
  readonly bytes?: Buffer | string;
  /** Serve other bytes than the lists say (hash mismatch) for this version. */
  readonly corrupt?: boolean;
}

export interface ResourceSnapshotEntry {
  readonly sha256: string;
  readonly length: number;
  readonly bytes: Buffer;
}

/** A notification as made (before any fault), for tests that check what was published. */
export interface MadeNotification {
  readonly seq: number;
  readonly from: string;
  readonly until: string;
  readonly entries: number;
  readonly body: Buffer;
}

export interface SimulatorStats {
  readonly resources: number;
  readonly changes: number;
  readonly notifications: PublisherStats;
  readonly outstandingNotifications: number;
  readonly changeLists: number;
  readonly changeListPendingBatches: number;
  readonly corruptedResources: number;
  readonly requests: number;
  /** Requests for the Change List Index and Change Lists answered (injected errors not counted). */
  readonly changeListRequests: number;
  /** Of those, requests for the Change List Index. */
  readonly changeListIndexRequests: number;
  readonly injectedServerErrors: number;
  /** Change List (Index) requests answered 503 with Retry-After (listUnavailable* faults). */
  readonly listUnavailable: number;
  /** Change List (Index) requests answered 304 Not Modified (a conditional GET, nothing new). */
  readonly listNotModified: number;
  readonly lastUntil?: string;
}

export interface SourceSimulator {
  readonly baseUrl: string;
  readonly wellKnownUrl: string;
  readonly capabilityListUrl: string;
  readonly resourceListUrl: string;
  readonly changeListIndexUrl: string;
  readonly topicUrl: string;
  readonly topicPrefix: string;
  readonly faults: Faults;
  setHub(hubUrl: string, token?: string): void;
  changeBatch(count: number): Promise<void>;
  makeChanges(changes: readonly ExplicitChange[]): Promise<void>;
  start(ratePerSecond: number): void;
  pause(): void;
  readonly running: boolean;
  snapshot(): Map<string, ResourceSnapshotEntry>;
  corruptedUris(): string[];
  healCorruption(): void;
  lastUntil(): string | undefined;
  notificationsMade(): readonly MadeNotification[];
  postLog(): readonly PostRecord[];
  stats(): SimulatorStats;
  /** Change List (Index) requests in arrival order, with answer, User-Agent and validators sent. */
  listRequests(): readonly ListRequest[];
  flush(): Promise<void>;
  close(): Promise<void>;
}
