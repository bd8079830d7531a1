// The HTTP surface of the hub (hono): the hub endpoint (routed by Content-Type, M-1), /healthz and
// /metrics. Routes only translate between HTTP and the services; every decision lives in them.
import type { IncomingMessage } from 'node:http';
import { Hono, type Context } from 'hono';
import { describeError } from '@rsnotify/shared';
import type { Logger, HubMetrics } from './observability/index.js';
import { checkHealth } from './observability/index.js';
import { isFormContentType, isXmlContentType, type PublishingService } from './publishing/index.js';
import { parseHubForm, type SubscriptionService } from './subscriptions/index.js';
import { isStoreUnavailable } from './store/index.js';

export interface AppDeps {
  readonly hubPath: string;
  readonly subscriptions: SubscriptionService;
  readonly publishing: PublishingService;
  readonly metrics: HubMetrics;
  readonly logger: Logger;
  readonly maxBodyBytes: number;
  readonly maxFormBytes: number;
  readonly ping: () => Promise<void>;
  /** False while shutting down: new requests get 503. */
  readonly accepting: () => boolean;
  /** Extra /healthz fields (engine, this process's delivery claims, cluster role). */
  readonly healthDetails?: () => Record<string, unknown>;
}

type Body = { ok: true; bytes: Buffer } | { ok: false; status: 413 | 400; reason: string };

/** Reads a node request stream with a byte limit, without an async iterator per request (hot path). */
function readIncoming(incoming: IncomingMessage, limit: number): Promise<Body> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (b: Body) => { if (!done) { done = true; resolve(b); } };
    incoming.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) { finish({ ok: false, status: 413, reason: `body larger than ${limit} bytes` }); incoming.pause(); return; }
      chunks.push(chunk);
    });
    incoming.on('end', () => finish({ ok: true, bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) }));
    incoming.on('error', (err) => finish({ ok: false, status: 400, reason: `could not read the request body: ${describeError(err).message}` }));
    incoming.on('close', () => finish({ ok: false, status: 400, reason: 'request closed before its body was complete' }));
  });
}

/** Reads the request body once, as bytes, refusing more than `limit` (413) before buffering it all. */
async function readBody(c: Context, limit: number): Promise<Body> {
  const declared = c.req.header('content-length');
  if (declared !== undefined && Number(declared) > limit) return { ok: false, status: 413, reason: `body larger than ${limit} bytes` };
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming) return readIncoming(incoming, limit);
  try {
    const ab = await c.req.arrayBuffer();
    if (ab.byteLength > limit) return { ok: false, status: 413, reason: `body larger than ${limit} bytes` };
    return { ok: true, bytes: Buffer.from(ab) };
  } catch (err) {
    return { ok: false, status: 400, reason: `could not read the request body: ${describeError(err).message}` };
  }
}

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  const { logger } = deps;

  app.post(deps.hubPath, async function hubEndpoint(c) {
    if (!deps.accepting()) return c.text('hub is shutting down\n', 503);
    const contentType = c.req.header('content-type');
    if (isFormContentType(contentType)) {
      const body = await readBody(c, deps.maxFormBytes);
      if (!body.ok) return c.text(`${body.reason}\n`, body.status, { connection: 'close' });
      const parsed = parseHubForm(new URLSearchParams(body.bytes.toString('utf8')));
      if (!parsed.ok) {
        logger.info({ event: 'request.rejected', status: parsed.status, reason: parsed.reason }, 'invalid hub request');
        return c.text(`${parsed.reason}\n`, parsed.status);
      }
      const req = parsed.value;
      if (req.mode === 'publish') {
        const r = await deps.publishing.publishTopics(req.topics, c.req.header('authorization'));
        return r.ok ? c.text('published\n', 200) : c.text(`${r.reason}\n`, r.status);
      }
      const r = await deps.subscriptions.accept(req);
      // WH-3, RT-9: 202 whatever the verification will say.
      return r.ok ? c.text('accepted; verification of intent follows\n', 202) : c.text(`${r.reason}\n`, r.status);
    }
    if (isXmlContentType(contentType)) {
      const body = await readBody(c, deps.maxBodyBytes);
      if (!body.ok) {
        deps.metrics.publishRejected.inc({ reason: 'too_large' });
        logger.info({ event: 'publish.rejected', status: body.status, reason: body.reason }, 'publish refused');
        return c.text(`${body.reason}\n`, body.status, { connection: 'close' });
      }
      const r = await deps.publishing.acceptNotification({
        contentType: contentType!, linkHeader: c.req.header('link'), authorization: c.req.header('authorization'), body: body.bytes,
      });
      // RT-7, M-2: 200 only once the notification is durably stored.
      if (!r.ok) return c.text(`${r.reason}\n`, r.status, r.status === 401 ? { 'www-authenticate': 'Bearer' } : {});
      return c.text('accepted\n', 200);
    }
    logger.info({ event: 'request.rejected', status: 415, contentType }, 'unsupported content type');
    return c.text('Content-Type must be application/x-www-form-urlencoded (subscribe, unsubscribe, publish) or application/xml (ResourceSync notification)\n', 415);
  });

  app.get(deps.hubPath, (c) => c.text('rsnotify WebSub hub: POST subscription requests and notifications here\n', 200));

  app.get('/healthz', async (c) => {
    const report = await checkHealth(deps.ping);
    return c.json({ ...deps.healthDetails?.(), ...report }, report.ok ? 200 : 503);
  });

  app.get('/metrics', async (c) => {
    const text = await deps.metrics.registry.metrics();
    return c.text(text, 200, { 'content-type': deps.metrics.registry.contentType });
  });

  app.notFound((c) => c.text('not found\n', 404));
  app.onError((err, c) => {
    if (isStoreUnavailable(err)) {
      // The database is away: nothing was committed, so the client must retry (never 200 without a commit).
      logger.warn({ event: 'request.store_unavailable', path: c.req.path }, 'database unavailable; answered 503');
      return c.text('database unavailable; retry later\n', 503, { 'retry-after': '1' });
    }
    logger.error({ event: 'request.error', err: describeError(err), path: c.req.path }, 'request failed');
    return c.text('internal error\n', 500);
  });
  return app;
}
