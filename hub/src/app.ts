// The HTTP surface of the hub (hono): the hub endpoint (routed by Content-Type, M-1), /healthz and
// /metrics. Routes only translate between HTTP and the services; every decision lives in them, and
// their refusals become status codes here only (REFUSAL_STATUS).
import type { IncomingMessage } from 'node:http';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { describeError } from '@rsnotify/shared';
import {
  ByteBudget,
  drainRefused,
  readLimitedBody,
  readLimitedWebBody,
  UNREAD_BODY_DRAIN,
  type BodyRead,
  type BodyRefusalCode,
} from '@rsnotify/service-kit';
import type { Logger, HubMetrics } from './observability/index.js';
import { checkHealth } from './observability/index.js';
import { isFormContentType, isXmlContentType, type PublishingService } from './publishing/index.js';
import { parseHubForm, type SubscriptionService } from './subscriptions/index.js';
import { isStoreUnavailable } from './store/index.js';
import type { Refusal } from './errors/index.js';

/** The one table from a domain refusal to its HTTP status. */
export const REFUSAL_STATUS = {
  malformed: 400, // WH-4, RT-7
  'callback-refused': 400, // WH-4
  'missing-token': 401, // RT-7 (with WWW-Authenticate: Bearer)
  'wrong-token': 403, // RT-5
  'not-owner': 403, // RT-5
  'not-found': 404,
  conflict: 409,
  unauthorized: 401, // admin API (with WWW-Authenticate: Bearer)
  forbidden: 403, // admin console: cross-site or without CSRF token
  'too-large': 413,
  'unsupported-media-type': 415, // M-1
  'not-implemented': 501, // RFC 9112 §6.1 (with Connection: close)
  'topic-unreachable': 502, // WH-21
  busy: 503,
  'shutting-down': 503,
  unavailable: 503,
} as const satisfies Record<Refusal, number>;

export type RefusalStatus = (typeof REFUSAL_STATUS)[Refusal];

/** The headers that go with a refusal's status: how to authenticate, when to come back. */
export function refusalHeaders(refusal: Refusal): Record<string, string> {
  if (refusal === 'missing-token' || refusal === 'unauthorized')
    return { 'www-authenticate': 'Bearer' };
  // The body's end cannot be found, so the connection cannot carry another request.
  if (refusal === 'not-implemented') return { connection: 'close' };
  // Only a passing condition invites a retry; 'unavailable' will answer the same next time.
  if (refusal === 'busy' || refusal === 'shutting-down') return { 'retry-after': '1' };
  return {};
}

/** A refused request answered as plain text with the refusal's status and headers. */
export function answerRefusal(c: Context, refusal: Refusal, reason: string): Response {
  return c.text(`${reason}\n`, REFUSAL_STATUS[refusal], refusalHeaders(refusal));
}

/** A refused API request (admin API, bridge lookups) answered as JSON with the refusal's status. */
export function answerRefusalJson(
  c: Context,
  refusal: Refusal,
  body: Record<string, unknown>,
): Response {
  return c.json(body, REFUSAL_STATUS[refusal], refusalHeaders(refusal));
}

export interface AppDeps {
  readonly hubPath: string;
  readonly subscriptions: SubscriptionService;
  readonly publishing: PublishingService;
  readonly metrics: HubMetrics;
  readonly logger: Logger;
  readonly maxBodyBytes: number;
  readonly maxFormBytes: number;
  /** Bytes of unauthenticated bodies (forms, open publishing) read at once, over all connections. */
  readonly maxUnauthenticatedBodyBytes?: number;
  readonly ping: () => Promise<void>;
  /** False while shutting down: new requests get 503. */
  readonly accepting: () => boolean;
  /** The operator console and admin API (admin/), mounted at /admin, and its rejection recorder. */
  readonly admin?: { readonly app: Hono<any>; readonly recordRejections: MiddlewareHandler }; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Extra /healthz fields (engine, this process's delivery claims, cluster role). */
  readonly healthDetails?: () => Record<string, unknown>;
  /** Extra route groups (the bridge's), mounted before the 404 handler. */
  readonly mounts?: readonly ((app: Hono) => void)[];
}

/** The node request under @hono/node-server; undefined when the app is driven without a socket. */
function incomingOf(c: Context): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
}

/** Reads the request body once, as bytes, through the shared limited reader. */
function readBody(c: Context, limit: number, budget?: ByteBudget): Promise<BodyRead> {
  const incoming = incomingOf(c);
  return incoming
    ? readLimitedBody(incoming, { limit, budget })
    : readLimitedWebBody(c.req.raw, limit);
}

/** Answered without reading the body: read and drop at most a little of it, then close. */
function leaveBodyUnread(c: Context): void {
  const incoming = incomingOf(c);
  if (incoming) drainRefused(incoming, UNREAD_BODY_DRAIN);
}

/** The shared body reader's refusals, as the hub's refusal kinds. */
const BODY_REFUSAL = {
  RSN_BODY_TOO_LARGE: 'too-large',
  RSN_BODY_UNREADABLE: 'malformed',
  RSN_BODY_BUDGET_EXHAUSTED: 'busy',
} as const satisfies Record<BodyRefusalCode, Refusal>;

/** 32 MiB: two open-publishing bodies at the 16 MiB limit, or 512 subscription forms at 64 KiB. */
export const DEFAULT_UNAUTHENTICATED_BODY_BYTES = 32 * 1024 * 1024;

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  const { logger } = deps;
  const unauthenticated = new ByteBudget(
    deps.maxUnauthenticatedBodyBytes ?? DEFAULT_UNAUTHENTICATED_BODY_BYTES,
  );

  /** A refusal at the HTTP layer: one log line and one metric each (publish refusals count in publishing/). */
  const refuse = (
    c: Context,
    refusal: Refusal,
    reason: string,
    text: string,
    fields: Record<string, unknown> = {},
  ): Response => {
    const status = REFUSAL_STATUS[refusal];
    deps.metrics.requestsRejected.inc({ status: String(status), reason });
    logger.info({ event: 'request.rejected', status, reason, ...fields }, text);
    return answerRefusal(c, refusal, text);
  };

  // RFC 9112 §3.2: more than one Host is a 400; RFC 9112 §6.1: a transfer coding other than chunked is
  // a 501 (we decode none), and the connection is closed since the body's end cannot be found.
  app.use('*', async (c: Context, next) => {
    const incoming = incomingOf(c);
    if (incoming) {
      let hosts = 0;
      const raw = incoming.rawHeaders;
      for (let i = 0; i < raw.length; i += 2)
        if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') hosts++;
      if (hosts > 1) {
        leaveBodyUnread(c);
        return refuse(c, 'malformed', 'duplicate_host', 'more than one Host header');
      }
      const te = incoming.headers['transfer-encoding'];
      if (te !== undefined && te.trim().toLowerCase() !== 'chunked') {
        leaveBodyUnread(c);
        return refuse(
          c,
          'not-implemented',
          'transfer_encoding',
          `Transfer-Encoding ${JSON.stringify(te)} is not supported (only chunked)`,
        );
      }
    }
    await next();
  });
  if (deps.admin) {
    app.use(deps.hubPath, deps.admin.recordRejections);
    app.route('/admin', deps.admin.app);
  }

  app.post(deps.hubPath, async function hubEndpoint(c) {
    if (!deps.accepting()) return answerRefusal(c, 'shutting-down', 'hub is shutting down');
    const contentType = c.req.header('content-type');
    if (isFormContentType(contentType)) {
      // Forms are small and carry no credentials in headers: their bytes count against the shared
      // unauthenticated budget while they are read.
      const body = await readBody(c, deps.maxFormBytes, unauthenticated);
      if (!body.ok)
        return refuse(
          c,
          BODY_REFUSAL[body.code],
          body.code === 'RSN_BODY_TOO_LARGE' ? 'form_too_large' : body.code,
          body.reason,
        );
      const parsed = parseHubForm(new URLSearchParams(body.bytes.toString('utf8')));
      if (!parsed.ok) return refuse(c, parsed.refusal, 'invalid_form', parsed.reason);
      const req = parsed.value;
      if (req.mode === 'publish') {
        const r = await deps.publishing.publishTopics(req.topics, c.req.header('authorization'));
        return r.ok ? c.text('published\n', 200) : answerRefusal(c, r.refusal, r.reason);
      }
      const r = await deps.subscriptions.accept(req);
      if (!r.ok) {
        const status = String(REFUSAL_STATUS[r.refusal]);
        deps.metrics.requestsRejected.inc({ status, reason: 'subscription' });
        return answerRefusal(c, r.refusal, r.reason);
      }
      // WH-3, RT-9: 202 whatever the verification will say.
      return c.text('accepted; verification of intent follows\n', 202);
    }
    if (isXmlContentType(contentType)) {
      const linkHeader = c.req.header('link');
      const authorization = c.req.header('authorization');
      // Link, token and ownership are decided by the headers: a refusal reads (almost) none of the body.
      const admission = await deps.publishing.admit(linkHeader, authorization);
      if (!admission.ok) {
        leaveBodyUnread(c);
        return answerRefusal(c, admission.refusal, admission.reason);
      }
      const body = await readBody(
        c,
        deps.maxBodyBytes,
        admission.authenticated ? undefined : unauthenticated,
      );
      if (!body.ok) {
        const reason =
          body.code === 'RSN_BODY_TOO_LARGE'
            ? 'too_large'
            : body.code === 'RSN_BODY_BUDGET_EXHAUSTED'
              ? 'busy'
              : 'unreadable';
        deps.metrics.publishRejected.inc({ reason });
        logger.info(
          {
            event: 'publish.rejected',
            status: body.status,
            code: body.code,
            reason: body.reason,
            topic: admission.topic,
          },
          'publish refused',
        );
        return answerRefusal(c, BODY_REFUSAL[body.code], body.reason);
      }
      const r = await deps.publishing.acceptNotification({
        admission,
        contentType: contentType!,
        linkHeader: linkHeader!, // admitted: it was there
        body: body.bytes,
      });
      // RT-7, M-2: 200 only once the notification is durably stored.
      if (!r.ok) return answerRefusal(c, r.refusal, r.reason);
      return c.text('accepted\n', 200);
    }
    leaveBodyUnread(c);
    return refuse(
      c,
      'unsupported-media-type',
      'unsupported_media_type',
      'Content-Type must be application/x-www-form-urlencoded (subscribe, unsubscribe, publish) or application/xml (ResourceSync notification)',
      { contentType },
    );
  });

  app.get(deps.hubPath, (c) =>
    c.text('rsnotify WebSub hub: POST subscription requests and notifications here\n', 200),
  );

  app.get('/healthz', async (c) => {
    const report = await checkHealth(deps.ping);
    return c.json({ ...deps.healthDetails?.(), ...report }, report.ok ? 200 : 503);
  });

  app.get('/metrics', async (c) => {
    const text = await deps.metrics.registry.metrics();
    return c.text(text, 200, { 'content-type': deps.metrics.registry.contentType });
  });

  for (const mount of deps.mounts ?? []) mount(app);

  app.notFound((c) => answerRefusal(c, 'not-found', 'not found'));
  app.onError((err, c) => {
    if (isStoreUnavailable(err)) {
      // The database is away: nothing was committed, so the client must retry (never 200 without a commit).
      logger.warn(
        { event: 'request.store_unavailable', path: c.req.path },
        'database unavailable; answered 503',
      );
      return answerRefusal(c, 'busy', 'database unavailable; retry later');
    }
    logger.error(
      { event: 'request.error', err: describeError(err), path: c.req.path },
      'request failed',
    );
    return c.text('internal error\n', 500);
  });
  return app;
}
