// The OpenAPI 3.1 description of /admin/api/, served at /admin/api/openapi.json. Kept next to the
// routes it describes (admin/api.ts); a test checks that every documented path answers.

const error = { $ref: '#/components/schemas/Error' };
const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const refused = {
  401: { description: 'missing or wrong admin token', ...json(error) },
  403: { description: 'cross-site request or missing CSRF token', ...json(error) },
};
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'integer' } };
const nameParam = { name: 'name', in: 'path', required: true, schema: { type: 'string' } };

const sourceView = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    topicPrefixes: { type: 'array', items: { type: 'string' } },
    allowCallbacks: { type: 'array', items: { type: 'string' } },
    tokenFingerprint: {
      type: 'string',
      description: 'sha256:<8 hex> of the token hash; never the token',
    },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

const bridgedSourceView = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    pollUrl: { type: 'string', format: 'uri' },
    pollIntervalMs: { type: 'integer' },
    topic: { type: 'string', description: 'the topic the hub publishes its changes on' },
    lastPollAt: { type: 'string', format: 'date-time' },
    lastError: { type: 'string', description: 'URLs redacted' },
  },
};

const subscriptionView = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    topic: { type: 'string' },
    callback: {
      type: 'string',
      description: 'origin and a short hash: the callback path is a capability and never shown',
    },
    callbackOrigin: { type: 'string' },
    state: { enum: ['active', 'expired'] },
    health: { enum: ['healthy', 'retrying', 'failing'] },
    leaseExpiresAt: { type: 'string', format: 'date-time' },
    signed: { type: 'boolean' },
    queueDepth: {
      type: 'integer',
      description: 'notifications accepted for the topic and not yet done for this subscription',
    },
    deliveredSeq: { type: 'integer' },
    attempts: { type: 'integer' },
    nextAttemptAt: { type: 'string', format: 'date-time' },
    lastStatus: { type: 'integer' },
    lastError: { type: 'string' },
    givenUp: { type: 'integer' },
  },
};

export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'rsnotify hub admin API',
      version: '1',
      description:
        'Operate a hub: Sources, subscriptions, topics, delivery health. Every figure is read from the shared store.',
    },
    servers: [{ url: '/admin/api' }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'an admin token from `rsnotify-hub admin token create NAME`',
        },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['error', 'message'],
          properties: { error: { type: 'string' }, message: { type: 'string' } },
        },
        Source: sourceView,
        Subscription: subscriptionView,
      },
    },
    paths: {
      '/counters': {
        get: {
          summary: 'cluster-wide live counters',
          responses: { 200: { description: 'counters', ...json({ type: 'object' }) }, ...refused },
        },
      },
      '/sources': {
        get: {
          summary: 'list Sources',
          responses: {
            200: {
              description: 'Sources',
              ...json({
                type: 'object',
                properties: {
                  sources: { type: 'array', items: { $ref: '#/components/schemas/Source' } },
                  bridged: { type: 'array', items: bridgedSourceView },
                },
              }),
            },
            ...refused,
          },
        },
        post: {
          summary:
            'register a Source: one that publishes (topicPrefixes; the answer carries its publish token, shown this once) or one the hub polls (poll, pollInterval: the bridge)',
          requestBody: {
            required: true,
            ...json({
              oneOf: [
                {
                  type: 'object',
                  required: ['name', 'topicPrefixes'],
                  properties: {
                    name: { type: 'string' },
                    topicPrefixes: { type: 'array', items: { type: 'string' } },
                    allowCallbacks: { type: 'array', items: { type: 'string' } },
                  },
                },
                {
                  type: 'object',
                  required: ['name', 'poll'],
                  properties: {
                    name: { type: 'string' },
                    poll: {
                      type: 'string',
                      format: 'uri',
                      description: 'base URL, Source Description or Capability List',
                    },
                    pollInterval: {
                      oneOf: [{ type: 'integer', minimum: 100 }, { type: 'string' }],
                      description: 'milliseconds, or a duration such as 30s or 5m (default 30s)',
                    },
                  },
                },
              ],
            }),
          },
          responses: {
            201: {
              description: 'registered',
              ...json({
                type: 'object',
                properties: {
                  source: { $ref: '#/components/schemas/Source' },
                  token: { type: 'string' },
                  bridged: bridgedSourceView,
                },
              }),
            },
            400: { description: 'invalid', ...json(error) },
            409: { description: 'name or prefix taken', ...json(error) },
            ...refused,
          },
        },
      },
      '/sources/{name}': {
        delete: {
          summary: 'remove a Source (its token stops working)',
          parameters: [nameParam],
          responses: {
            204: { description: 'removed' },
            404: { description: 'unknown', ...json(error) },
            ...refused,
          },
        },
      },
      '/sources/{name}/rotate-token': {
        post: {
          summary: "replace a Source's publish token; the new one is shown this once",
          parameters: [nameParam],
          responses: {
            200: {
              description: 'rotated',
              ...json({
                type: 'object',
                properties: { token: { type: 'string' }, tokenFingerprint: { type: 'string' } },
              }),
            },
            404: { description: 'unknown', ...json(error) },
            ...refused,
          },
        },
      },
      '/subscriptions': {
        get: {
          summary: 'list subscriptions with their delivery health',
          parameters: [
            { name: 'topic', in: 'query', schema: { type: 'string' } },
            { name: 'callbackOrigin', in: 'query', schema: { type: 'string' } },
            { name: 'state', in: 'query', schema: { enum: ['active', 'expired'] } },
            { name: 'health', in: 'query', schema: { enum: ['healthy', 'retrying', 'failing'] } },
          ],
          responses: {
            200: {
              description: 'subscriptions',
              ...json({
                type: 'object',
                properties: {
                  subscriptions: {
                    type: 'array',
                    items: { $ref: '#/components/schemas/Subscription' },
                  },
                },
              }),
            },
            400: { description: 'bad filter', ...json(error) },
            ...refused,
          },
        },
      },
      '/subscriptions/{id}': {
        get: {
          summary: "one subscription's delivery health and given-up items",
          parameters: [idParam],
          responses: {
            200: { description: 'health', ...json({ $ref: '#/components/schemas/Subscription' }) },
            404: { description: 'unknown', ...json(error) },
            ...refused,
          },
        },
        delete: {
          summary: 'delete a subscription',
          parameters: [idParam],
          responses: {
            204: { description: 'deleted' },
            404: { description: 'unknown', ...json(error) },
            ...refused,
          },
        },
      },
      '/subscriptions/{id}/retry-given-up': {
        post: {
          summary: 'send every given-up notification of the subscription again, now',
          parameters: [idParam],
          responses: {
            200: {
              description: 'one result per item',
              ...json({
                type: 'object',
                properties: {
                  results: {
                    type: 'array',
                    items: {
                      type: 'object',
                      properties: {
                        seq: { type: 'integer' },
                        outcome: { enum: ['delivered', 'failed', 'missing'] },
                        status: { type: 'integer' },
                        error: { type: 'string' },
                      },
                    },
                  },
                },
              }),
            },
            404: { description: 'unknown', ...json(error) },
            ...refused,
          },
        },
      },
      '/topics': {
        get: {
          summary:
            'topics with last seq, rate (notifications per minute over 5 min) and subscriber count',
          responses: { 200: { description: 'topics', ...json({ type: 'object' }) }, ...refused },
        },
      },
      '/rejections': {
        get: {
          summary: 'recent refused requests at the hub endpoint',
          parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }],
          responses: {
            200: { description: 'rejections', ...json({ type: 'object' }) },
            ...refused,
          },
        },
      },
      '/openapi.json': {
        get: {
          summary: 'this document',
          responses: { 200: { description: 'OpenAPI 3.1' }, ...refused },
        },
      },
    },
  };
}
