// The hub endpoint, POST <hubPath>: subscription requests and form publishes (WH-3, WH-4, WH-21)
// and ResourceSync notifications (RT-4, RT-7, M-1), routed by Content-Type. It is served from
// node:http directly, not through Hono: it carries every publish, and Hono's adapter, router,
// context and Response cost a publish about 7 % of its CPU (test/bench/results/profile.md). Every
// other route (GET of the endpoint, /healthz, /metrics, /admin, the bridge's) is in app.ts; both
// answer refusals through the one table there (REFUSAL_STATUS) and check framing the same way.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  answerText,
  ByteBudget,
  drainRefused,
  readLimitedBody,
  UNREAD_BODY_DRAIN,
  type BodyRefusalCode,
} from '@rsnotify/service-kit';
import type { Logger, HubMetrics } from './observability/index.js';
import { isFormContentType, isXmlContentType, type PublishingService } from './publishing/index.js';
import { parseHubForm, type SubscriptionService } from './subscriptions/index.js';
import type { Refusal } from './errors/index.js';
import type { RejectionRecorder } from './admin/index.js';
import {
  framingRefusal,
  noteRequestFailed,
  noteRequestRefused,
  REFUSAL_STATUS,
  refusalHeaders,
} from './app.js';

export interface HubEndpointDeps {
  readonly subscriptions: SubscriptionService;
  readonly publishing: PublishingService;
  readonly metrics: HubMetrics;
  readonly logger: Logger;
  readonly maxBodyBytes: number;
  readonly maxFormBytes: number;
  /** Bytes of unauthenticated bodies (forms, open publishing) read at once, over all connections. */
  readonly maxUnauthenticatedBodyBytes?: number;
  /** False while shutting down: new requests get 503. */
  readonly accepting: () => boolean;
  /** Told of every answer of 400 or more, after it is written (the console's recent rejections). */
  readonly onRejected?: RejectionRecorder;
}

/** Handles one POST to the hub path; the listener routes it here (listener/serve.ts). */
export type HubEndpoint = (req: IncomingMessage, res: ServerResponse) => void;

/** The shared body reader's refusals, as the hub's refusal kinds. */
const BODY_REFUSAL = {
  RSN_BODY_TOO_LARGE: 'too-large',
  RSN_BODY_UNREADABLE: 'malformed',
  RSN_BODY_BUDGET_EXHAUSTED: 'busy',
} as const satisfies Record<BodyRefusalCode, Refusal>;

/** 32 MiB: two open-publishing bodies at the 16 MiB limit, or 512 subscription forms at 64 KiB. */
export const DEFAULT_UNAUTHENTICATED_BODY_BYTES = 32 * 1024 * 1024;

/** The request's path for a log line: its query string may carry what is not ours to log. */
const pathOf = (req: IncomingMessage): string => (req.url ?? '').split('?')[0]!;

export const UNSUPPORTED_MEDIA_TYPE_TEXT =
  'Content-Type must be application/x-www-form-urlencoded (subscribe, unsubscribe, publish) or application/xml (ResourceSync notification)';

export function createHubEndpoint(deps: HubEndpointDeps): HubEndpoint {
  const { logger, metrics } = deps;
  const unauthenticated = new ByteBudget(
    deps.maxUnauthenticatedBodyBytes ?? DEFAULT_UNAUTHENTICATED_BODY_BYTES,
  );

  const answer = (
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    text: string,
    headers?: Record<string, string>,
  ): void => {
    answerText(res, status, `${text}\n`, headers);
    if (status >= 400) deps.onRejected?.(status, req.headers['content-type'], text);
  };

  const answerRefusal = (
    req: IncomingMessage,
    res: ServerResponse,
    refusal: Refusal,
    reason: string,
  ): void => answer(req, res, REFUSAL_STATUS[refusal], reason, refusalHeaders(refusal));

  /** A refusal of the request as such: one log line and one metric (publish refusals count in publishing/). */
  const refuse = (
    req: IncomingMessage,
    res: ServerResponse,
    refusal: Refusal,
    reason: string,
    text: string,
    fields: Record<string, unknown> = {},
  ): void => {
    noteRequestRefused(deps, refusal, reason, text, fields);
    answerRefusal(req, res, refusal, text);
  };

  /** Answered without reading the body: read and drop at most a little of it, then close. */
  const leaveBodyUnread = (req: IncomingMessage): void => drainRefused(req, UNREAD_BODY_DRAIN);

  async function form(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Forms are small and carry no credentials in headers: their bytes count against the shared
    // unauthenticated budget while they are read.
    const body = await readLimitedBody(req, { limit: deps.maxFormBytes, budget: unauthenticated });
    if (!body.ok) {
      const reason = body.code === 'RSN_BODY_TOO_LARGE' ? 'form_too_large' : body.code;
      return refuse(req, res, BODY_REFUSAL[body.code], reason, body.reason);
    }
    const parsed = parseHubForm(new URLSearchParams(body.bytes.toString('utf8')));
    if (!parsed.ok) return refuse(req, res, parsed.refusal, 'invalid_form', parsed.reason);
    const request = parsed.value;
    if (request.mode === 'publish') {
      const r = await deps.publishing.publishTopics(request.topics, req.headers['authorization']);
      return r.ok
        ? answer(req, res, 200, 'published')
        : answerRefusal(req, res, r.refusal, r.reason);
    }
    const r = await deps.subscriptions.accept(request);
    if (!r.ok) {
      metrics.requestsRejected.inc({
        status: String(REFUSAL_STATUS[r.refusal]),
        reason: 'subscription',
      });
      return answerRefusal(req, res, r.refusal, r.reason);
    }
    // WH-3, RT-9: 202 whatever the verification will say.
    answer(req, res, 202, 'accepted; verification of intent follows');
  }

  async function notification(
    req: IncomingMessage,
    res: ServerResponse,
    contentType: string,
  ): Promise<void> {
    // Node joins a repeated Link header with ", " (only Set-Cookie comes as an array).
    const linkHeader = req.headers['link'] as string | undefined;
    // Link, token and ownership are decided by the headers: a refusal reads (almost) none of the body.
    const admission = await deps.publishing.admit(linkHeader, req.headers['authorization']);
    if (!admission.ok) {
      leaveBodyUnread(req);
      return answerRefusal(req, res, admission.refusal, admission.reason);
    }
    const body = await readLimitedBody(req, {
      limit: deps.maxBodyBytes,
      budget: admission.authenticated ? undefined : unauthenticated,
    });
    if (!body.ok) {
      const reason =
        body.code === 'RSN_BODY_TOO_LARGE'
          ? 'too_large'
          : body.code === 'RSN_BODY_BUDGET_EXHAUSTED'
            ? 'busy'
            : 'unreadable';
      metrics.publishRejected.inc({ reason });
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
      return answerRefusal(req, res, BODY_REFUSAL[body.code], body.reason);
    }
    const r = await deps.publishing.acceptNotification({
      admission,
      contentType,
      linkHeader: linkHeader!, // admitted: it was there
      body: body.bytes,
    });
    // RT-7, M-2: 200 only once the notification is durably stored.
    if (!r.ok) return answerRefusal(req, res, r.refusal, r.reason);
    answer(req, res, 200, 'accepted');
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const framing = framingRefusal(req);
    if (framing) {
      leaveBodyUnread(req);
      return refuse(req, res, framing.refusal, framing.reason, framing.text);
    }
    if (!deps.accepting()) {
      leaveBodyUnread(req);
      return answerRefusal(req, res, 'shutting-down', 'hub is shutting down');
    }
    const contentType = req.headers['content-type'];
    if (isFormContentType(contentType)) return form(req, res);
    if (isXmlContentType(contentType)) return notification(req, res, contentType!);
    leaveBodyUnread(req);
    refuse(
      req,
      res,
      'unsupported-media-type',
      'unsupported_media_type',
      UNSUPPORTED_MEDIA_TYPE_TEXT,
      {
        contentType,
      },
    );
  }

  const failed = (req: IncomingMessage, res: ServerResponse, err: unknown): void => {
    if (res.headersSent) {
      // Failed after the answer began: nothing can be said any more but closing the connection.
      res.destroy();
      return;
    }
    const failure = noteRequestFailed(logger, err, pathOf(req));
    if (failure.refusal) answerRefusal(req, res, failure.refusal, failure.text);
    else answer(req, res, 500, failure.text);
  };

  return (req, res) => {
    handle(req, res).catch((err: unknown) => failed(req, res, err));
  };
}
