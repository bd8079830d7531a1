// Turns a valid subscribe/unsubscribe request into a pending intent (persisted before the 202, WH-3),
// deciding denial by the owning Source's policy (WH-14) and the granted lease (WH-13).
import {
  checkOutboundUrl,
  describeError,
  isRsnotifyError,
  type OutboundPolicy,
} from '@rsnotify/shared';
import type { Refusal } from '../errors/index.js';
import type { Logger } from '../observability/index.js';
import type { HubRepository, Intent, Subscription } from '../store/index.js';
import { subscriptionDenialReason, type TenantDirectory } from '../tenants/index.js';
import { grantLease, type LeaseBounds } from './lease.js';
import type { SubscriptionRequest } from './request.js';

export type AcceptResult =
  | { readonly ok: true; readonly intent: Intent }
  | { readonly ok: false; readonly refusal: Refusal & 'callback-refused'; readonly reason: string };

export class SubscriptionService {
  constructor(
    private readonly deps: {
      store: HubRepository;
      tenants: TenantDirectory;
      logger: Logger;
      leases: LeaseBounds;
      outbound: OutboundPolicy;
      now: () => number;
      /** The intent is stored: the verification worker may start it. */
      intentQueued: (intent: Intent) => void;
      /** What is stored for a hub.secret (secrets at rest, hub/src/secrets); default as given. */
      sealSecret?: (secret: string) => string;
      onExpired: (s: Subscription) => void;
    },
  ) {}

  private sealed(secret: string | undefined): string | undefined {
    return secret === undefined || !this.deps.sealSecret ? secret : this.deps.sealSecret(secret);
  }

  async accept(req: SubscriptionRequest): Promise<AcceptResult> {
    const { logger } = this.deps;
    try {
      // WH-4: a callback the hub will never call (private address, bad scheme) is refused now, not silently later.
      checkOutboundUrl(req.callback, this.deps.outbound);
    } catch (err) {
      const d = describeError(err);
      logger.info(
        {
          event: 'subscription.rejected',
          topic: req.topicAsGiven,
          callback: req.callback,
          code: d.code,
        },
        'callback refused',
      );
      // The reply never repeats the callback: its path is the subscriber's capability.
      return {
        ok: false,
        refusal: 'callback-refused',
        reason: `hub.callback refused: ${callbackRefusal(err)}`,
      };
    }
    const now = this.deps.now();
    const denial =
      req.mode === 'subscribe'
        ? subscriptionDenialReason(await this.deps.tenants.sources(), req.topic, req.callback)
        : undefined;
    const intent = await this.deps.store.addIntent(
      denial !== undefined
        ? {
            mode: 'denied',
            topicUrl: req.topic,
            topicAsGiven: req.topicAsGiven,
            callback: req.callback,
            secret: undefined,
            leaseSeconds: undefined,
            reason: denial,
            nextAttemptAt: now,
            createdAt: now,
          }
        : {
            mode: req.mode,
            topicUrl: req.topic,
            topicAsGiven: req.topicAsGiven,
            callback: req.callback,
            secret: req.mode === 'subscribe' ? this.sealed(req.secret) : undefined,
            leaseSeconds:
              req.mode === 'subscribe' ? grantLease(req.leaseSeconds, this.deps.leases) : undefined,
            reason: undefined,
            nextAttemptAt: now,
            createdAt: now,
          },
    );
    logger.info(
      {
        event: 'subscription.requested',
        mode: req.mode,
        topic: req.topicAsGiven,
        callback: req.callback,
        denied: denial !== undefined,
        leaseSeconds: intent.leaseSeconds,
      },
      'request accepted for verification',
    );
    this.deps.intentQueued(intent);
    return { ok: true, intent };
  }

  /** WH-13: leases are enforced; expired subscriptions are deleted and stop receiving. */
  async sweepExpired(): Promise<number> {
    const removed = await this.deps.store.removeExpiredSubscriptions(this.deps.now());
    for (const s of removed) {
      this.deps.logger.info(
        { event: 'subscription.expired', topic: s.topicAsGiven, callback: s.callback },
        'lease expired; subscription removed',
      );
      this.deps.onExpired(s);
    }
    return removed.length;
  }
}

/** Why a callback was refused, without the callback URL (an OutboundUrlError's message quotes it). */
function callbackRefusal(err: unknown): string {
  if (isRsnotifyError(err) && err.code === 'RSN_OUTBOUND_BAD_URL') {
    const reason = err.details.reason;
    return typeof reason === 'string' ? reason : 'not a URL the hub may call';
  }
  return describeError(err).message;
}
