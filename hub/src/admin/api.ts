// The admin API (JSON under /admin/api/). Routes only translate HTTP to AdminService calls and name
// each refusal's kind; app.ts's one refusal table turns a kind into its status. Authentication and
// the cross-site guard sit in front (admin/index.ts).
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { normaliseTopicUrl, RsnotifyError } from '@rsnotify/shared';
import { answerRefusalJson } from '../app.js';
import type { Refusal } from '../errors/index.js';
import type { AdminEnv } from './auth.js';
import { TenantError } from '../tenants/index.js';
import { isDeliveryHealth } from './health.js';
import { openApiDocument } from './openapi.js';
import { AdminError, type AdminService, type SubscriptionFilter } from './service.js';

// A publishing Source (topic prefixes, a token) or a bridged one (poll settings, polled by the hub).
const addSourceBody = z.union([
  z
    .object({
      name: z.string().min(1),
      topicPrefixes: z.array(z.string().min(1)).min(1),
      allowCallbacks: z.array(z.string().min(1)).default([]),
    })
    .strict(),
  z
    .object({
      name: z.string().min(1),
      poll: z.url({ protocol: /^https?$/ }),
      pollInterval: z.union([z.number().int().positive(), z.string().min(1)]).optional(),
    })
    .strict(),
]);

const CONFLICT_CODES = new Set(['RSN_SOURCE_EXISTS', 'RSN_PREFIX_TAKEN', 'RSN_BRIDGE_EXISTS']);

/** An admin refusal: a stable code and a message, answered as `{ error, message }`. */
export function refuseJson(c: Context, refusal: Refusal, error: string, message: string): Response {
  return answerRefusalJson(c, refusal, { error, message });
}

/** What the service threw, as a domain refusal; undefined for anything that is not the caller's. */
function refusalOf(err: unknown): Refusal | undefined {
  if (err instanceof AdminError) return err.refusal;
  // A Source the directory refuses (bad name or prefix) is the caller's mistake.
  if (err instanceof TenantError) return 'malformed';
  if (err instanceof RsnotifyError) {
    if (CONFLICT_CODES.has(err.code as string)) return 'conflict';
    // The bridge refuses a name, URL or interval it cannot use: the caller's mistake.
    if (err.name === 'BridgeError') return 'malformed';
  }
  return undefined;
}

/** One place answers what the service threw as JSON with a stable code; anything else is rethrown. */
export function errorAnswer(c: Context, err: unknown): Response {
  const refusal = refusalOf(err);
  if (refusal === undefined) throw err;
  const e = err as RsnotifyError;
  return refuseJson(c, refusal, e.code, e.message);
}

function idParam(c: Context): number | undefined {
  const raw = c.req.param('id') ?? '';
  return /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
}

export function subscriptionFilter(
  q: Record<string, string | undefined>,
): SubscriptionFilter | string {
  const filter: { -readonly [K in keyof SubscriptionFilter]: SubscriptionFilter[K] } = {};
  // Topics are keyed by their WH-6 normal form, whatever spelling the operator typed.
  if (q.topic) filter.topic = normaliseTopicUrl(q.topic);
  if (q.callbackOrigin) filter.callbackOrigin = q.callbackOrigin.replace(/\/+$/, '');
  if (q.state) {
    if (q.state !== 'active' && q.state !== 'expired') return 'state must be active or expired';
    filter.state = q.state;
  }
  if (q.health) {
    if (!isDeliveryHealth(q.health)) return 'health must be healthy, retrying or failing';
    filter.health = q.health;
  }
  return filter;
}

export function createAdminApi(service: AdminService): Hono<AdminEnv> {
  const api = new Hono<AdminEnv>();
  const badId = (c: Context) =>
    refuseJson(c, 'malformed', 'RSN_ADMIN_BAD_ID', 'the id must be a number');

  api.get('/openapi.json', (c) => c.json(openApiDocument()));
  api.get('/counters', async (c) => c.json(await service.counters()));
  api.get('/sources', async (c) =>
    c.json({ sources: await service.sources(), bridged: await service.bridgedSources() }),
  );
  api.post('/sources', async (c) => {
    let raw: unknown;
    try {
      raw = await c.req.json();
    } catch {
      return refuseJson(c, 'malformed', 'RSN_ADMIN_BAD_JSON', 'the body must be JSON');
    }
    const parsed = addSourceBody.safeParse(raw);
    if (!parsed.success)
      return refuseJson(c, 'malformed', 'RSN_ADMIN_BAD_REQUEST', z.prettifyError(parsed.error));
    try {
      const body = parsed.data;
      if ('poll' in body)
        return c.json(
          {
            bridged: await service.addBridgedSource({
              name: body.name,
              pollUrl: body.poll,
              ...(body.pollInterval === undefined ? {} : { pollInterval: body.pollInterval }),
            }),
          },
          201,
        );
      return c.json(await service.addSource(body), 201, { 'cache-control': 'no-store' });
    } catch (err) {
      return errorAnswer(c, err);
    }
  });
  api.delete('/sources/:name', async (c) => {
    try {
      await service.removeSource(c.req.param('name'));
      return c.body(null, 204);
    } catch (err) {
      return errorAnswer(c, err);
    }
  });
  api.post('/sources/:name/rotate-token', async (c) => {
    try {
      return c.json(await service.rotateSourceToken(c.req.param('name')), 200, {
        'cache-control': 'no-store',
      });
    } catch (err) {
      return errorAnswer(c, err);
    }
  });

  api.get('/subscriptions', async (c) => {
    const filter = subscriptionFilter(c.req.query());
    if (typeof filter === 'string')
      return refuseJson(c, 'malformed', 'RSN_ADMIN_BAD_FILTER', filter);
    return c.json({ subscriptions: await service.subscriptions(filter) });
  });
  api.get('/subscriptions/:id', async (c) => {
    const id = idParam(c);
    if (id === undefined) return badId(c);
    try {
      return c.json(await service.subscription(id));
    } catch (err) {
      return errorAnswer(c, err);
    }
  });
  api.delete('/subscriptions/:id', async (c) => {
    const id = idParam(c);
    if (id === undefined) return badId(c);
    try {
      await service.deleteSubscription(id);
      return c.body(null, 204);
    } catch (err) {
      return errorAnswer(c, err);
    }
  });
  api.post('/subscriptions/:id/retry-given-up', async (c) => {
    const id = idParam(c);
    if (id === undefined) return badId(c);
    try {
      return c.json({ results: await service.retryGivenUp(id) });
    } catch (err) {
      return errorAnswer(c, err);
    }
  });

  api.get('/topics', async (c) => c.json({ topics: await service.topics() }));
  api.get('/rejections', async (c) => {
    const limit = Math.min(500, Math.max(1, Number(c.req.query('limit') ?? 50) || 50));
    return c.json({ rejections: await service.rejections(limit) });
  });
  api.notFound((c) => refuseJson(c, 'not-found', 'RSN_ADMIN_NO_ROUTE', 'no such admin API route'));
  return api;
}
