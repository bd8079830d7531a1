// The HTTP surface of the hub (hono): /healthz, /metrics, GET of the hub endpoint, the console and the
// bridge's routes. The hub endpoint's POST (subscriptions and publishes) is served beside it from
// node:http (hub-endpoint.ts); the listener routes between the two (listener/serve.ts). Routes only
// translate between HTTP and the services; every decision lives in them, and their refusals become
// status codes here only (REFUSAL_STATUS).
import type { IncomingMessage } from 'node:http';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { describeError } from '@rsnotify/shared';
import {
  drainRefused,
  framingProblem,
  UNREAD_BODY_DRAIN,
  type FramingProblem,
} from '@rsnotify/service-kit';
import type { Logger, HubMetrics } from './observability/index.js';
import { checkHealth } from './observability/index.js';
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
  readonly metrics: HubMetrics;
  readonly logger: Logger;
  readonly ping: () => Promise<void>;
  /** The operator console and admin API (admin/), mounted at /admin, and its rejection recorder. */
  readonly admin?: { readonly app: Hono<any>; readonly recordRejections: MiddlewareHandler }; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Extra /healthz fields (engine, this process's delivery claims, cluster role). */
  readonly healthDetails?: () => Record<string, unknown>;
  /** Extra route groups (the bridge's), mounted before the 404 handler. */
  readonly mounts?: readonly ((app: Hono) => void)[];
}

/** A request whose framing is refused before anything else is looked at, with why. */
export interface FramingRefusal {
  readonly refusal: Refusal & ('malformed' | 'not-implemented');
  readonly reason: FramingProblem['kind'];
  readonly text: string;
}

/** service-kit's framing checks (RFC 9112 §3.2, §6.1), as hub refusals: every route, the hub endpoint's included. */
export function framingRefusal(incoming: IncomingMessage): FramingRefusal | undefined {
  const problem = framingProblem(incoming);
  if (!problem) return undefined;
  const refusal = problem.kind === 'duplicate_host' ? 'malformed' : 'not-implemented';
  return { refusal, reason: problem.kind, text: problem.text };
}

/** A request refused at the HTTP layer, here or at the hub endpoint: one log line and one metric. */
export function noteRequestRefused(
  deps: { readonly metrics: HubMetrics; readonly logger: Logger },
  refusal: Refusal,
  reason: string,
  text: string,
  fields: Record<string, unknown> = {},
): void {
  const status = REFUSAL_STATUS[refusal];
  deps.metrics.requestsRejected.inc({ status: String(status), reason });
  deps.logger.info({ event: 'request.rejected', status, reason, ...fields }, text);
}

/**
 * An error no route expected, here or at the hub endpoint, logged once: the database away is a 503
 * to retry (nothing was committed, so never a 200 without a commit), anything else a 500.
 */
export function noteRequestFailed(
  logger: Logger,
  err: unknown,
  path: string,
): { readonly refusal?: 'busy'; readonly text: string } {
  if (isStoreUnavailable(err)) {
    logger.warn({ event: 'request.store_unavailable', path }, 'database unavailable; answered 503');
    return { refusal: 'busy', text: 'database unavailable; retry later' };
  }
  logger.error({ event: 'request.error', err: describeError(err), path }, 'request failed');
  return { text: 'internal error' };
}

function incomingOf(c: Context): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
}

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  const { logger } = deps;

  const refuse = (c: Context, refusal: Refusal, reason: string, text: string): Response => {
    noteRequestRefused(deps, refusal, reason, text);
    return answerRefusal(c, refusal, text);
  };

  app.use('*', async (c: Context, next) => {
    const incoming = incomingOf(c);
    const framing = incoming && framingRefusal(incoming);
    if (framing) {
      drainRefused(incoming, UNREAD_BODY_DRAIN);
      return refuse(c, framing.refusal, framing.reason, framing.text);
    }
    await next();
  });
  if (deps.admin) {
    app.use(deps.hubPath, deps.admin.recordRejections);
    app.route('/admin', deps.admin.app);
  }

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
    const failure = noteRequestFailed(logger, err, c.req.path);
    return failure.refusal
      ? answerRefusal(c, failure.refusal, failure.text)
      : c.text(`${failure.text}\n`, 500);
  });
  return app;
}
