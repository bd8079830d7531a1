// The delivery POST (WebSub §7, WS-11): the raw body stored durably in the inbox before the 202
// (promise 2), then handed over for parsing, ordering and applying. It is served from node:http
// directly, not through Hono: it carries every notification, and Hono's adapter, router, context,
// Request and Response cost it about 6 µs of CPU and an eighth of what a notification allocates
// (test/bench/results/profile.md). The listener routes it here (routes.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  answerText,
  drainRefused,
  readLimitedBody,
  UNREAD_BODY_DRAIN,
} from '@rsnotify/service-kit';
import { headerValue } from '../mirror/index.js';
import { SIGNATURE_SLICE_BYTES } from '@rsnotify/shared';
import { decideDelivery, decideSignature, decideSignatureInSlices } from '../subscription/index.js';
import type { IntakeDeps } from './deps.js';
import type { SubscriptionLookup } from './subscription-lookup.js';

/** Handles one delivery POST to the callback of `token`. */
export type DeliveryEndpoint = (req: IncomingMessage, res: ServerResponse, token: string) => void;

const ACCEPTED_HEADERS = { 'content-length': '0' };

export function createDeliveryEndpoint(
  deps: IntakeDeps,
  lookup: SubscriptionLookup,
): DeliveryEndpoint {
  const { repo, logger, metrics } = deps;

  /** Answered without reading the body: read and drop at most a little of it, then close. */
  const refuseUnread = (
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    text: string,
  ) => {
    drainRefused(req, UNREAD_BODY_DRAIN);
    metrics.deliveriesRejected.inc({ status: String(status) });
    answerText(res, status, text);
  };

  const tooLarge = (res: ServerResponse): void => {
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
    answerText(res, 413, 'payload too large');
  };

  async function deliver(req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > deps.maxBodyBytes) {
      drainRefused(req, UNREAD_BODY_DRAIN);
      return tooLarge(res);
    }
    const rec = await lookup.find(token);
    const acceptance = decideDelivery(rec);
    if (acceptance.kind === 'unknown' || !rec) return refuseUnread(req, res, 404, 'not found');
    if (acceptance.kind === 'gone') return refuseUnread(req, res, 410, 'gone'); // WS-12
    const read = await readLimitedBody(req, { limit: deps.maxBodyBytes });
    if (!read.ok) {
      if (read.status === 413) return tooLarge(res);
      metrics.deliveriesRejected.inc({ status: String(read.status) });
      logger.info(
        { event: 'delivery.rejected', status: read.status, code: read.code },
        'delivery.rejected',
      );
      return answerText(res, read.status, read.reason);
    }
    const body = read.bytes;
    const source = deps.sourceName(rec.sourceId);
    const header = headerValue(req.headers, 'x-hub-signature');
    // A body over a megabyte is hashed in slices (a 9.5 MiB one took ~10 ms in one piece).
    const signed =
      body.length > SIGNATURE_SLICE_BYTES
        ? await decideSignatureInSlices(rec.secret, header, body)
        : decideSignature(rec.secret, header, body);
    if (signed.kind === 'refuse-unsigned') {
      // WS-16: refuse unsigned deliveries with a non-2xx that is not 410 (which would end it).
      metrics.deliveriesRejected.inc({ status: '403' });
      logger.warn(
        { event: 'delivery.unsigned', source, subscriptionId: rec.id },
        'delivery.unsigned',
      );
      return answerText(res, 403, 'signature required');
    }
    if (signed.kind === 'ignore') {
      // WS-15: a wrong signature is ignored locally; the 2xx keeps the hub from retrying a forgery.
      metrics.deliveriesIgnored.inc({ source, reason: signed.reason });
      await repo.countIgnoredDelivery(rec.sourceId);
      logger.warn(
        { event: 'delivery.bad_signature', source, subscriptionId: rec.id, reason: signed.reason },
        'delivery.bad_signature',
      );
      res.writeHead(202, ACCEPTED_HEADERS);
      res.end();
      return;
    }
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
    const contentType = headerValue(req.headers, 'content-type');
    let id: number;
    try {
      id = await repo.insertInbox(
        {
          sourceId: rec.sourceId,
          subscriptionId: rec.id,
          receivedAt,
          ...(contentType ? { contentType } : {}),
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
      return answerText(res, 503, 'could not store');
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
    res.writeHead(202, ACCEPTED_HEADERS);
    res.end();
  }

  return (req, res, token) => {
    deliver(req, res, token).catch((err: unknown) => {
      // The store failed outside the inbox write (the subscription's lookup, a counter).
      logger.error({ event: 'delivery.failed', error: (err as Error).message }, 'delivery.failed');
      if (res.headersSent) res.destroy();
      else answerText(res, 503, 'could not store');
    });
  };
}
