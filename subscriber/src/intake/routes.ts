// Callback routes (WebSub §5.3, §7): the verification GET answered from the store (WS-8..WS-10) and
// the delivery POST, stored raw and durably in the inbox before the 2xx (WS-11, promise 2). Parsing,
// ordering and applying start once the row is committed, at the latest after the answer. Only this
// file maps outcomes to HTTP statuses.
import type { IncomingMessage } from 'node:http';
import { Hono, type Context } from 'hono';
import { WEBSUB } from '@rsnotify/shared';
import {
  drainRefused,
  framingProblem,
  readLimitedBody,
  readLimitedWebBody,
  UNREAD_BODY_DRAIN,
  type BodyRead,
} from '@rsnotify/service-kit';
import type { Logger } from '../observability/index.js';
import type { SubscriberMetrics } from '../observability/index.js';
import type { SubscriberRepository, SubscriptionRecord } from '../store/index.js';
import {
  decideDelivery,
  decideSignature,
  decideVerification,
  type LeasePolicy,
} from '../subscription/index.js';

const CACHE_MS = 1_000;

export interface IntakeDeps {
  readonly repo: SubscriberRepository;
  readonly logger: Logger;
  readonly metrics: SubscriberMetrics;
  readonly clock: () => number;
  readonly leasePolicy: LeasePolicy;
  readonly maxBodyBytes: number;
  /** Path prefix of publicUrl ('' or '/something'). */
  readonly basePath: string;
  readonly sourceName: (sourceId: number) => string;
  /**
   * A delivery was committed to the inbox: called once per row, as soon as the store reports the
   * commit (possibly before it is synced to disk and answered), else after the answer.
   */
  readonly onDelivered: (
    sourceId: number,
    inboxId: number,
    body: Buffer,
    receivedAt: number,
  ) => void;
  /** A verification changed a subscription (verified, unsubscribed, denied). */
  readonly onSubscriptionChanged: (rec: SubscriptionRecord) => void;
}

export function createIntakeApp(deps: IntakeDeps): Hono {
  const { repo, logger, metrics } = deps;
  const app = new Hono();
  const callbackPath = `${deps.basePath}/callback/:token`;
  // Deliveries look their subscription up on every POST: a short-lived cache spares the store. Its
  // secret never changes; a state change made elsewhere (CLI, planner) is seen within CACHE_MS, and
  // the ones made here (verification) drop the entry at once.
  const cache = new Map<string, { rec: SubscriptionRecord | undefined; at: number }>();
  const lookup = async (token: string): Promise<SubscriptionRecord | undefined> => {
    const now = deps.clock();
    const hit = cache.get(token);
    if (hit && now - hit.at < CACHE_MS) return hit.rec;
    const rec = await repo.findSubscriptionByToken(token);
    if (cache.size > 10_000) cache.clear();
    if (rec) cache.set(token, { rec, at: now });
    return rec;
  };

  // RFC 9112 §3.2, §6.1: the framing checks both daemons make (service-kit).
  app.use('*', async (c: Context, next) => {
    const incoming = incomingOf(c);
    const problem = incoming && framingProblem(incoming);
    if (problem) {
      leaveBodyUnread(c);
      metrics.deliveriesRejected.inc({ status: String(problem.status) });
      logger.info(
        { event: 'request.rejected', status: problem.status, reason: problem.kind },
        'request.rejected',
      );
      return c.text(
        problem.text,
        problem.status,
        problem.status === 501 ? { connection: 'close' } : {},
      );
    }
    await next();
  });

  app.get('/healthz', (c) => c.text('ok'));
  app.get('/metrics', async (c) =>
    c.body(await metrics.registry.metrics(), 200, { 'content-type': metrics.registry.contentType }),
  );

  app.get(callbackPath, async (c) => {
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
    cache.delete(rec.callbackToken);
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

  app.post(callbackPath, async (c) => {
    const declared = Number(c.req.header('content-length'));
    if (Number.isFinite(declared) && declared > deps.maxBodyBytes) {
      leaveBodyUnread(c);
      return tooLarge(c);
    }
    const rec = await lookup(c.req.param('token') ?? '');
    const acceptance = decideDelivery(rec);
    if (acceptance.kind === 'unknown' || !rec) {
      leaveBodyUnread(c);
      metrics.deliveriesRejected.inc({ status: '404' });
      return c.text('not found', 404);
    }
    if (acceptance.kind === 'gone') {
      leaveBodyUnread(c);
      metrics.deliveriesRejected.inc({ status: '410' });
      return c.text('gone', 410); // WS-12
    }
    const read = await readBody(c, deps.maxBodyBytes);
    if (!read.ok) {
      if (read.status === 413) return tooLarge(c);
      metrics.deliveriesRejected.inc({ status: String(read.status) });
      logger.info(
        { event: 'delivery.rejected', status: read.status, code: read.code },
        'delivery.rejected',
      );
      return c.text(read.reason, read.status);
    }
    const body = read.bytes;
    const source = deps.sourceName(rec.sourceId);
    const signed = decideSignature(rec.secret, c.req.header('x-hub-signature'), body);
    if (signed.kind === 'refuse-unsigned') {
      // WS-16: refuse unsigned deliveries with a non-2xx that is not 410 (which would end it).
      metrics.deliveriesRejected.inc({ status: '403' });
      logger.warn(
        { event: 'delivery.unsigned', source, subscriptionId: rec.id },
        'delivery.unsigned',
      );
      return c.text('signature required', 403);
    }
    if (signed.kind === 'ignore') {
      // WS-15: a wrong signature is ignored locally; the 2xx keeps the hub from retrying a forgery.
      metrics.deliveriesIgnored.inc({ source, reason: signed.reason });
      await repo.countIgnoredDelivery(rec.sourceId);
      logger.warn(
        { event: 'delivery.bad_signature', source, subscriptionId: rec.id, reason: signed.reason },
        'delivery.bad_signature',
      );
      return c.body(null, 202);
    }
    let id: number;
    const receivedAt = deps.clock();
    // Parsing, ordering and applying may start once the row is committed (readable, safe from a
    // process crash) while the store still syncs it to disk: all of it is idempotent on replay, and
    // a row lost to power loss was never answered, so the hub sends it again (WS-11). Only the 202
    // waits for the sync.
    let handedOver = false;
    const handOver = (stored: number): void => {
      handedOver = true;
      deps.onDelivered(rec.sourceId, stored, body, receivedAt);
    };
    try {
      id = await repo.insertInbox(
        {
          sourceId: rec.sourceId,
          subscriptionId: rec.id,
          receivedAt,
          ...(c.req.header('content-type') ? { contentType: c.req.header('content-type')! } : {}),
          body,
          signature: signed.signature,
        },
        handOver,
      );
    } catch (err) {
      logger.error(
        { event: 'delivery.store_failed', source, error: (err as Error).message },
        'delivery.store_failed',
      );
      return c.text('could not store', 503);
    }
    metrics.deliveriesReceived.inc({ source });
    logger.debug(
      { event: 'notification.received', source, inboxId: id, bytes: body.length },
      'notification.received',
    );
    if (!handedOver) {
      const stored = id;
      setImmediate(() => handOver(stored));
    }
    return c.body(null, 202);
  });

  function tooLarge(c: Context): Response {
    metrics.deliveriesRejected.inc({ status: '413' });
    logger.info(
      {
        event: 'delivery.rejected',
        status: 413,
        code: 'RSN_BODY_TOO_LARGE',
        maxBytes: deps.maxBodyBytes,
      },
      'delivery.rejected',
    );
    return c.text('payload too large', 413);
  }

  return app;
}

/** The node request under @hono/node-server; undefined when the app is driven without a socket. */
function incomingOf(c: Context): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
}

/**
 * The raw body through the shared limited reader (service-kit): refused past `max` bytes without
 * buffering the rest, and the 413 reaches the hub before the connection is closed.
 */
function readBody(c: Context, max: number): Promise<BodyRead> {
  const incoming = incomingOf(c);
  if (!incoming || incoming.readableEnded) return readLimitedWebBody(c.req.raw, max);
  return readLimitedBody(incoming, { limit: max });
}

/** Answered without reading the body: read and drop at most a little of it, then close. */
function leaveBodyUnread(c: Context): void {
  const incoming = incomingOf(c);
  if (incoming) drainRefused(incoming, UNREAD_BODY_DRAIN);
}
