// When to look at a Source's channel again, and what a fresh look means: plain functions over plain
// data with the clock passed in. WS-3: discovery runs again before each lease renewal, so a Source
// that moves its hub or drops its channel is followed; in polling mode it runs again now and then,
// so a channel that reappears brings the Source back to push.
import type { SourceMode } from '../store/index.js';
import type { SubscriptionAction } from '../subscription/index.js';

/** What the runner knows of a Source's channel (the stored discovery result). */
export interface ChannelFacts {
  readonly mode: SourceMode;
  readonly hub?: string;
  readonly topic?: string;
}

export type ChannelChange =
  /** Same mode, same hub and topic. */
  | { readonly kind: 'unchanged' }
  /** The first successful discovery (nothing was known before). */
  | { readonly kind: 'first'; readonly mode: 'push' | 'poll' }
  /** Push before, no channel now: polling mode until it comes back. */
  | { readonly kind: 'dropped'; readonly reason: 'not-advertised' }
  /** Polling before, a channel now: back to push. */
  | { readonly kind: 'restored' }
  /** Push before and after, on another hub or topic (the subscription migrates). */
  | { readonly kind: 'moved' };

export function channelChange(before: ChannelFacts, after: ChannelFacts): ChannelChange {
  if (before.mode === 'unknown')
    return after.mode === 'unknown' ? { kind: 'unchanged' } : { kind: 'first', mode: after.mode };
  if (before.mode === 'push' && after.mode !== 'push')
    return { kind: 'dropped', reason: 'not-advertised' };
  if (before.mode !== 'push' && after.mode === 'push') return { kind: 'restored' };
  if (after.mode === 'push' && (before.hub !== after.hub || before.topic !== after.topic))
    return { kind: 'moved' };
  return { kind: 'unchanged' };
}

/** A discovery younger than this is fresh enough for a renewal planned right after it. */
export const FRESH_DISCOVERY_MS = 5_000;

/** WS-3: a renewal (any subscribe but the first) is preceded by a fresh discovery. */
export function rediscoverBeforeRenewal(
  actions: readonly SubscriptionAction[],
  now: number,
  discoveredAt: number,
): boolean {
  const sub = actions.find((a) => a.kind === 'subscribe');
  return sub !== undefined && sub.reason !== 'initial' && now - discoveredAt > FRESH_DISCOVERY_MS;
}

/** In polling mode discovery runs again every tenth poll at most (within [pollInterval, 1 h]). */
export function pollRediscoveryIntervalMs(pollIntervalMs: number): number {
  return Math.min(3_600_000, Math.max(pollIntervalMs, 10 * pollIntervalMs));
}

/** Whether the poll about to run looks at the Capability List again first. */
export function rediscoveryDue(now: number, discoveredAt: number, pollIntervalMs: number): boolean {
  return now - discoveredAt >= pollRediscoveryIntervalMs(pollIntervalMs);
}

/** How many times at most the lists are read after a fresh activation (activationSettling). */
export const ACTIVATION_SETTLE_READS = 10;

/** What is known, one gapTimeout after another, since a fresh subscription became active. */
export interface ActivationFacts {
  /** The position now (epoch ms); undefined when none is established. */
  readonly positionMs: number | undefined;
  /** Our answer to the verification plus gapTimeout: the hub is taken to have activated us by then. */
  readonly settleByMs: number;
  /** Reads of the lists made so far for the settling. */
  readonly reads: number;
  /** A delivery arrived since the activation. */
  readonly delivered: boolean;
}

export type ActivationSettling =
  | { readonly kind: 'read-again' }
  /** The lists prove the position past settleBy, or a delivery arrived, or no position to move. */
  | { readonly kind: 'settled' }
  /** The reads ran out before the lists proved anything past settleBy. */
  | { readonly kind: 'unproven' };

/**
 * The hub activates a subscription once our answer to its verification reaches it (WS-8, WH-9); a
 * notification it accepted before that is not delivered to us, and the catch-up at the activation may
 * have read the Change Lists before the Source listed it. Nothing would show that gap until the next
 * delivery, so the lists are read again every gapTimeout until they prove the position past the time
 * the hub is taken to have activated us by (the time a missing notification is given anywhere, M-7).
 * A delivery ends it: a notification the hub accepted earlier comes before it, so the ordering sees
 * the gap and closes it (RN-5).
 */
export function activationSettling(f: ActivationFacts): ActivationSettling {
  if (f.delivered || f.positionMs === undefined || f.positionMs >= f.settleByMs)
    return { kind: 'settled' };
  return f.reads >= ACTIVATION_SETTLE_READS ? { kind: 'unproven' } : { kind: 'read-again' };
}
