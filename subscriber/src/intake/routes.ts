// Callback routes (WebSub §5.3, §7): the verification GET answered from the store (WS-8..WS-10), and
// the request listener that serves the delivery POST (delivery.ts) beside the Hono app for every
// other request. Framing is checked once, in the listener, before either sees a request. Only this
// file and delivery.ts map outcomes to HTTP statuses.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Hono } from 'hono';
import { getRequestListener } from '@hono/node-server';
import { WEBSUB } from '@rsnotify/shared';
import {
  answerText,
  drainRefused,
  framingProblem,
  targetPath,
  UNREAD_BODY_DRAIN,
} from '@rsnotify/service-kit';
import { decideVerification } from '../subscription/index.js';
import { createDeliveryEndpoint } from './delivery.js';
import type { IntakeDeps } from './deps.js';
import { SubscriptionLookup } from './subscription-lookup.js';

export type { IntakeDeps } from './deps.js';

export interface Intake {
  /** The Hono app: the verification GET, /healthz, /metrics; more routes may be mounted on it. */
  readonly app: Hono;
  /** The server's request listener: delivery POSTs to the endpoint, everything else to `app`. */
  readonly listener: (req: IncomingMessage, res: ServerResponse) => void;
}

export function createIntake(deps: IntakeDeps): Intake {
  const lookup = new SubscriptionLookup(deps.repo, deps.clock);
  const app = createIntakeApp(deps, lookup);
  const deliver = createDeliveryEndpoint(deps, lookup);
  const toApp = getRequestListener(app.fetch, { autoCleanupIncoming: false });
  const callbackPrefix = `${deps.basePath}/callback/`;
  const { logger, metrics } = deps;
  return {
    app,
    listener(req, res) {
      // RFC 9112 §3.2, §6.1: the framing checks both daemons make (service-kit).
      const problem = framingProblem(req);
      if (problem) {
        drainRefused(req, UNREAD_BODY_DRAIN);
        metrics.deliveriesRejected.inc({ status: String(problem.status) });
        logger.info(
          { event: 'request.rejected', status: problem.status, reason: problem.kind },
          'request.rejected',
        );
        answerText(res, problem.status, problem.text, problem.status === 501 ? CLOSE : {});
        return;
      }
      const token = req.method === 'POST' ? callbackToken(req.url, callbackPrefix) : undefined;
      if (token !== undefined) deliver(req, res, token);
      else void toApp(req, res);
    },
  };
}

const CLOSE = { connection: 'close' };

/**
 * The token of a request to `<prefix><token>` (one path segment, percent-decoded as the router
 * decodes a parameter), or undefined when the request targets another path.
 */
export function callbackToken(url: string | undefined, prefix: string): string | undefined {
  const path = targetPath(url);
  if (path === undefined || !path.startsWith(prefix)) return undefined;
  const token = path.slice(prefix.length);
  if (token === '' || token.includes('/')) return undefined;
  if (!token.includes('%')) return token;
  try {
    return decodeURIComponent(token);
  } catch {
    return token; // as Hono's router leaves a parameter it cannot decode
  }
}

function createIntakeApp(deps: IntakeDeps, lookup: SubscriptionLookup): Hono {
  const { repo, logger, metrics } = deps;
  const app = new Hono();

  app.get('/healthz', (c) => c.text('ok'));
  app.get('/metrics', async (c) =>
    c.body(await metrics.registry.metrics(), 200, { 'content-type': metrics.registry.contentType }),
  );

  app.get(`${deps.basePath}/callback/:token`, async (c) => {
    const rec = await repo.findSubscriptionByToken(c.req.param('token') ?? '');
    const now = deps.clock();
    const q = {
      mode: c.req.query(WEBSUB.mode),
      topic: c.req.query(WEBSUB.topic),
      challenge: c.req.query(WEBSUB.challenge),
      leaseSeconds: c.req.query(WEBSUB.leaseSeconds),
      reason: c.req.query(WEBSUB.reason),
    };
    const decision = decideVerification(rec, q, now, deps.leasePolicy);
    if (decision.kind === 'reject' || !rec) {
      logger.info(
        {
          event: 'verification.refused',
          mode: q.mode,
          topic: q.topic,
          why: decision.kind === 'reject' ? decision.why : 'unknown',
        },
        'verification.refused',
      );
      return c.text('not found', 404); // WS-8
    }
    const updated = await repo.updateSubscription(rec.id, decision.patch);
    lookup.forget(rec.callbackToken);
    const source = deps.sourceName(rec.sourceId);
    if (decision.kind === 'denied') {
      logger.warn(
        {
          event: 'subscription.denied',
          source,
          subscriptionId: rec.id,
          topic: rec.topic,
          hub: rec.hub,
          reason: q.reason,
        },
        'subscription.denied',
      );
      if (updated) deps.onSubscriptionChanged(updated);
      return c.text('', 200); // WS-10: 2xx, recorded
    }
    logger.info(
      {
        event: decision.event,
        source,
        subscriptionId: rec.id,
        topic: rec.topic,
        hub: rec.hub,
        leaseSeconds: decision.patch.leaseSeconds,
        leaseExpiresAt: decision.patch.leaseExpiresAt,
      },
      decision.event,
    );
    if (updated) deps.onSubscriptionChanged(updated);
    // WS-8: exactly the challenge, nothing around it.
    return c.body(decision.challenge, 200, { 'content-type': 'text/plain; charset=utf-8' });
  });

  return app;
}
