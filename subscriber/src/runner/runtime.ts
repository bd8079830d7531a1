// What a SourceRunner is given: the daemon's shared parts (store, HTTP, logger, metrics, clock) and
// the ports a unit test replaces (timers, the mirror, the subscription shell) to drive a runner with
// an in-memory repository, a fake mirror and a manual clock.
import type { Agent } from 'undici';
import type { ResolvedConfig } from '../config.js';
import type { PageFetcher } from '../discovery/index.js';
import type { HttpGetter, Mirror, MirrorOptions } from '../mirror/index.js';
import type { Logger, SubscriberMetrics } from '../observability/index.js';
import type { SubscriberRepository } from '../store/index.js';
import {
  executeActions,
  planFor,
  type ChannelTarget,
  type LeasePolicy,
  type SubscriptionAction,
  type SubscriptionDeps,
  type SubscriptionPlan,
} from '../subscription/index.js';

/** setTimeout/clearTimeout, injectable: tests fire timers from a manual clock. */
export interface Timers {
  set(delayMs: number, fn: () => void): unknown;
  clear(handle: unknown): void;
}

export const systemTimers: Timers = {
  set: (delayMs, fn) => setTimeout(fn, delayMs),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** The subscription shell (subscription/manager.ts) as the runner uses it. */
export interface SubscriptionPort {
  plan(
    sourceId: number,
    target: ChannelTarget | undefined,
    disabled: boolean,
  ): Promise<SubscriptionPlan>;
  execute(
    sourceId: number,
    target: ChannelTarget | undefined,
    actions: readonly SubscriptionAction[],
    leaseSeconds: number | undefined,
  ): Promise<void>;
}

export function subscriptionPortFrom(deps: SubscriptionDeps): SubscriptionPort {
  return {
    plan: (sourceId, target, disabled) => planFor(deps, sourceId, target, disabled),
    execute: (sourceId, target, actions, leaseSeconds) =>
      executeActions(deps, sourceId, target, actions, leaseSeconds),
  };
}

export interface Runtime {
  readonly cfg: ResolvedConfig;
  readonly repo: SubscriberRepository;
  readonly logger: Logger;
  readonly metrics: SubscriberMetrics;
  readonly http: HttpGetter;
  readonly fetcher: PageFetcher;
  readonly hubAgent: Agent;
  readonly clock: () => number;
  /**
   * When this process's runtime was built (Date.now(), not `clock`: it is compared with the file
   * times the kernel sets). The mirror's temporaries changed since are not swept at start.
   */
  readonly startedAtMs: number;
  readonly random: () => number;
  readonly leasePolicy: LeasePolicy;
  readonly subDeps?: SubscriptionDeps;
  /** Default: setTimeout. */
  readonly timers?: Timers;
  /** Default: the verified writer (mirror/). */
  readonly createMirror?: (options: MirrorOptions) => Mirror;
  /** Default: the shell over `subDeps`. */
  readonly subscriptions?: SubscriptionPort;
}
