// What startHub returns (the handle tests, the CLI and the demo drive a hub through) and what it takes
// besides its options.
import type { Clock, Random } from '@rsnotify/service-kit';
import type { BridgedSourceView } from './bridge/index.js';
import type { Logger } from './observability/index.js';

export interface RunningHub {
  /** The hub endpoint URL (publicUrl resolved with the real port). */
  readonly url: string;
  readonly port: number;
  /** Same as `rsnotify-hub source add`: registers a Source and returns its token (shown once). */
  addSource(
    name: string,
    topicPrefixes: string[],
    options?: { allowCallbacks?: string[] },
  ): Promise<{ token: string }>;
  /** Same as `rsnotify-hub source add NAME --poll URL`: the hub polls it and publishes on `{url}/bridge/NAME`. */
  addBridgedSource(
    name: string,
    pollUrl: string,
    options?: { intervalMs?: number },
  ): Promise<BridgedSourceView>;
  listBridgedSources(): Promise<BridgedSourceView[]>;
  removeBridgedSource(name: string): Promise<boolean>;
  /** Requests the bridge sent to an origin since start (tests, bench). */
  bridgeRequestsTo(origin: string): number;
  /** True while this process polls the bridged Sources (with PostgreSQL: the cluster leader). */
  bridgePolling(): boolean;
  /** Graceful: stop accepting, finish or persist in-flight work, close the database. */
  close(): Promise<void>;
}

/** What startHub takes besides its options: the same dependency bag as startSubscriber's. */
export interface HubDependencies {
  /** Inject a logger (tests); default JSON lines on stdout at the configured level. */
  readonly logger?: Logger;
  /** Wall-clock time for every decision (tests use a manual clock); default the system clock. */
  readonly clock?: Clock;
  /** Randomness for retry jitter; default Math.random. */
  readonly random?: Random;
}
