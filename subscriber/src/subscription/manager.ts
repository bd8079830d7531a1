// The I/O shell around the lifecycle: carries out a plan's actions for one source (store first, then
// the hub POST, WS-7) and reports what happened as log events.
import type { Dispatcher } from 'undici';
import type { Logger } from '../observability/index.js';
import type { OutboundPolicy } from '@rsnotify/shared';
import type { SubscriberRepository, SubscriptionRecord } from '../store/index.js';
import { newCallbackToken, newSecret, sendHubRequest, type HubOutcome } from './hub-client.js';
import {
  planSubscription,
  type ChannelTarget,
  type LeasePolicy,
  type SubscriptionAction,
  type SubscriptionPlan,
} from './lifecycle.js';

export interface SubscriptionDeps {
  readonly repo: SubscriberRepository;
  readonly dispatcher: Dispatcher;
  readonly outbound: OutboundPolicy;
  readonly leasePolicy: LeasePolicy;
  /** Base of callback URLs; the token is appended as `/callback/{token}`. */
  readonly callbackBase: string;
  readonly logger: Logger;
  readonly clock: () => number;
  readonly random: () => number;
}

export function callbackUrlFor(base: string, token: string): string {
  return `${base.replace(/\/+$/, '')}/callback/${token}`;
}

export async function planFor(
  deps: SubscriptionDeps,
  sourceId: number,
  target: ChannelTarget | undefined,
  disabled: boolean,
): Promise<SubscriptionPlan> {
  const subs = await deps.repo.listSubscriptions(sourceId);
  return planSubscription({
    ...(target ? { target } : {}),
    disabled,
    subs,
    now: deps.clock(),
    policy: deps.leasePolicy,
    random: deps.random,
  });
}

/** Carries out actions in order; returns true when a hub request was sent (a re-plan is useful). */
export async function executeActions(
  deps: SubscriptionDeps,
  sourceId: number,
  target: ChannelTarget | undefined,
  actions: readonly SubscriptionAction[],
  leaseSeconds: number | undefined,
): Promise<void> {
  const { repo, logger } = deps;
  for (const action of actions) {
    const now = deps.clock();
    switch (action.kind) {
      case 'expire':
        await repo.updateSubscription(action.subscriptionId, { state: 'expired', updatedAt: now });
        logger.warn(
          { event: 'subscription.expired', subscriptionId: action.subscriptionId },
          'subscription.expired',
        );
        break;
      case 'abandon':
        await repo.updateSubscription(action.subscriptionId, {
          state: 'abandoned',
          lastError: action.why,
          updatedAt: now,
        });
        logger.info(
          {
            event: 'subscription.abandoned',
            subscriptionId: action.subscriptionId,
            why: action.why,
          },
          'subscription.abandoned',
        );
        break;
      case 'unsubscribe': {
        const subs = await repo.listSubscriptions(sourceId);
        const sub = subs.find((s) => s.id === action.subscriptionId);
        if (!sub) break;
        await unsubscribe(deps, sub, action.why);
        break;
      }
      case 'subscribe': {
        if (!target) break;
        await subscribe(deps, sourceId, target, action, leaseSeconds);
        break;
      }
    }
  }
}

/** WS-19: the pending record is stored before the request, so the verification can be answered. */
export async function unsubscribe(
  deps: SubscriptionDeps,
  sub: SubscriptionRecord,
  why: string,
): Promise<HubOutcome> {
  const now = deps.clock();
  await deps.repo.updateSubscription(sub.id, { state: 'pending-unsubscribe', updatedAt: now });
  const outcome = await sendHubRequest(
    { hub: sub.hub, mode: 'unsubscribe', topic: sub.topic, callback: sub.callbackUrl },
    deps.dispatcher,
    deps.outbound,
  );
  const log = {
    event: 'subscription.unsubscribe_requested' as const,
    subscriptionId: sub.id,
    hub: sub.hub,
    topic: sub.topic,
    why,
    outcome: outcome.kind,
    status: 'status' in outcome ? outcome.status : undefined,
  };
  if (outcome.kind === 'accepted') deps.logger.info(log, 'subscription.unsubscribe_requested');
  else
    deps.logger.warn(
      {
        ...log,
        body: 'body' in outcome ? outcome.body : undefined,
        error: 'error' in outcome ? outcome.error : undefined,
      },
      'subscription.unsubscribe_requested',
    );
  return outcome;
}

async function subscribe(
  deps: SubscriptionDeps,
  sourceId: number,
  target: ChannelTarget,
  action: Extract<SubscriptionAction, { kind: 'subscribe' }>,
  leaseSeconds: number | undefined,
): Promise<void> {
  const { repo, logger } = deps;
  const now = deps.clock();
  // WS-5: a fresh capability URL and secret for every subscription and every renewal.
  const token = newCallbackToken();
  const callbackUrl = callbackUrlFor(deps.callbackBase, token);
  const rec = await repo.insertSubscription({
    sourceId,
    hub: target.hub,
    topic: target.topic,
    callbackToken: token,
    callbackUrl,
    secret: newSecret(),
    state: 'pending-subscribe',
    ...(leaseSeconds !== undefined ? { requestedLeaseSeconds: leaseSeconds } : {}),
    requestedAt: now,
    ...(action.renewsId !== undefined ? { renewsId: action.renewsId } : {}),
    attempt: action.attempt,
  });
  const outcome = await sendHubRequest(
    {
      hub: target.hub,
      mode: 'subscribe',
      topic: target.topic,
      callback: callbackUrl,
      ...(leaseSeconds !== undefined ? { leaseSeconds } : {}),
      secret: rec.secret!,
    },
    deps.dispatcher,
    deps.outbound,
  );
  const base = {
    subscriptionId: rec.id,
    hub: target.hub,
    topic: target.topic,
    reason: action.reason,
    attempt: action.attempt,
  };
  if (outcome.kind === 'accepted') {
    logger.info(
      {
        event: 'subscription.requested',
        ...base,
        status: outcome.status,
        redirectedTo: outcome.hub !== target.hub ? outcome.hub : undefined,
      },
      'subscription.requested',
    );
    return;
  }
  const error =
    outcome.kind === 'rejected'
      ? `HTTP ${outcome.status}: ${outcome.body}`
      : outcome.status !== undefined
        ? `HTTP ${outcome.status}: ${outcome.body ?? ''}`
        : (outcome.error ?? 'failed');
  // The verification cannot have succeeded for a request the hub refused, but re-read to be sure.
  const latest = (await repo.listSubscriptions(sourceId)).find((s) => s.id === rec.id);
  if (latest?.state === 'pending-subscribe') {
    await repo.updateSubscription(rec.id, {
      state: 'abandoned',
      lastError: error.slice(0, 500),
      updatedAt: deps.clock(),
    });
  }
  // WS-6: log the hub's text body.
  logger.warn(
    {
      event: outcome.kind === 'rejected' ? 'subscription.rejected' : 'subscription.hub_unreachable',
      ...base,
      status: outcome.status,
      body: 'body' in outcome ? outcome.body : undefined,
      error: 'error' in outcome ? outcome.error : undefined,
    },
    outcome.kind === 'rejected' ? 'subscription.rejected' : 'subscription.hub_unreachable',
  );
}
