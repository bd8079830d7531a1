// Pure policies of the hub, table-driven: request validation, lease clamp, retry next step, outcome
// classification, verification judgement, publish authorization and intake checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  backoffDelay,
  classifyError,
  classifyStatus,
  grantLease,
  judgeVerification,
  nextStep,
  parseHubForm,
  verificationUrl,
  type DeliveryOutcome,
  type RetryPolicy,
} from '@rsnotify/hub';
// Internal modules are reached through relative paths: they are the hub's own, tested in its package.
import {
  authorizePublish,
  findOwner,
  subscriptionDenialReason,
  bearerToken,
} from '../src/tenants/index.js';
import {
  isFormContentType,
  isXmlContentType,
  readIntakeLinks,
  topicProblems,
} from '../src/publishing/index.js';
import type { SourceRecord } from '../src/store/index.js';

const form = (o: Record<string, string | string[]>) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(o))
    for (const one of Array.isArray(v) ? v : [v]) q.append(k, one);
  return q;
};
const base = {
  'hub.mode': 'subscribe',
  'hub.topic': 'http://s.test/t',
  'hub.callback': 'http://c.test/cb?x=1',
};

test('WH-1, WH-2, WH-4, WH-6, WH-8, WH-10: subscription request validation', () => {
  const rows: {
    name: string;
    params: Record<string, string | string[]>;
    ok: boolean;
    expect?: Record<string, unknown>;
    reason?: RegExp;
  }[] = [
    {
      name: 'WH-1 minimal subscribe',
      params: base,
      ok: true,
      expect: { mode: 'subscribe', topic: 'http://s.test/t', callback: 'http://c.test/cb?x=1' },
    },
    {
      name: 'WH-1 secret and lease accepted',
      params: { ...base, 'hub.secret': 's3cret', 'hub.lease_seconds': '600' },
      ok: true,
      expect: { secret: 's3cret', leaseSeconds: 600 },
    },
    {
      name: 'WH-2 unknown parameters ignored',
      params: { ...base, 'hub.foo': 'bar', other: 'x' },
      ok: true,
    },
    {
      name: 'WH-4 missing mode',
      params: { 'hub.topic': 'http://s.test/t', 'hub.callback': 'http://c.test/' },
      ok: false,
      reason: /hub\.mode is missing/,
    },
    {
      name: 'WH-4 invalid mode',
      params: { ...base, 'hub.mode': 'subscribed' },
      ok: false,
      reason: /hub\.mode must be/,
    },
    {
      name: 'WH-4 missing topic',
      params: { 'hub.mode': 'subscribe', 'hub.callback': 'http://c.test/' },
      ok: false,
      reason: /hub\.topic is missing/,
    },
    {
      name: 'WH-4 missing callback',
      params: { 'hub.mode': 'subscribe', 'hub.topic': 'http://s.test/t' },
      ok: false,
      reason: /hub\.callback is missing/,
    },
    {
      name: 'WH-4 relative callback',
      params: { ...base, 'hub.callback': '/cb' },
      ok: false,
      reason: /not an absolute URL/,
    },
    {
      name: 'WH-6 ftp topic refused',
      params: { ...base, 'hub.topic': 'ftp://s.test/t' },
      ok: false,
      reason: /http or https/,
    },
    {
      name: 'WH-4 callback with a fragment',
      params: { ...base, 'hub.callback': 'http://c.test/cb#frag' },
      ok: false,
      reason: /fragment/,
    },
    {
      name: 'WH-4 duplicated callback',
      params: { ...base, 'hub.callback': ['http://c.test/a', 'http://c.test/b'] },
      ok: false,
      reason: /more than once/,
    },
    {
      name: 'WH-6 unreserved %7E decoded in topic and callback',
      params: {
        ...base,
        'hub.topic': 'http://s.test/%7Euser/t',
        'hub.callback': 'http://c.test/%41b?q=%2F',
      },
      ok: true,
      expect: {
        topic: 'http://s.test/~user/t',
        topicAsGiven: 'http://s.test/%7Euser/t',
        callback: 'http://c.test/Ab?q=%2F',
      },
    },
    {
      name: 'WH-8 secret of 199 bytes accepted',
      params: { ...base, 'hub.secret': 'a'.repeat(199) },
      ok: true,
    },
    {
      name: 'WH-8 secret of 200 bytes refused',
      params: { ...base, 'hub.secret': 'a'.repeat(200) },
      ok: false,
      reason: /200 bytes/,
    },
    {
      name: 'WH-8 secret counted in UTF-8 bytes (100 x "é" = 200 bytes)',
      params: { ...base, 'hub.secret': 'é'.repeat(100) },
      ok: false,
      reason: /200 bytes/,
    },
    {
      name: 'WH-13 malformed lease falls back to the default',
      params: { ...base, 'hub.lease_seconds': 'ten' },
      ok: true,
      expect: { leaseSeconds: undefined },
    },
    {
      name: 'WH-10 unsubscribe ignores lease and secret',
      params: { ...base, 'hub.mode': 'unsubscribe', 'hub.lease_seconds': '60', 'hub.secret': 'x' },
      ok: true,
      expect: { mode: 'unsubscribe', leaseSeconds: undefined, secret: undefined },
    },
    {
      name: 'WH-21 publish with hub.url and hub.topic',
      params: {
        'hub.mode': 'publish',
        'hub.url': 'http://s.test/a',
        'hub.topic': ['http://s.test/b', 'http://s.test/a'],
      },
      ok: true,
      expect: { mode: 'publish', topics: ['http://s.test/a', 'http://s.test/b'] },
    },
    {
      name: 'WH-21 publish without a topic',
      params: { 'hub.mode': 'publish' },
      ok: false,
      reason: /hub\.url or hub\.topic/,
    },
  ];
  for (const row of rows) {
    const r = parseHubForm(form(row.params));
    assert.equal(r.ok, row.ok, row.name);
    if (r.ok && row.expect)
      for (const [k, v] of Object.entries(row.expect))
        assert.deepEqual(
          (r.value as unknown as Record<string, unknown>)[k],
          v,
          `${row.name}: ${k}`,
        );
    if (!r.ok) {
      assert.equal(r.status, 400, row.name);
      assert.match(r.reason, row.reason!, row.name);
    }
  }
});

test('WH-13, RT-11, M-8: lease clamp', () => {
  const bounds = { minSeconds: 300, defaultSeconds: 864_000, maxSeconds: 2_678_400 };
  const rows: [number | undefined, number, string][] = [
    [undefined, 864_000, 'M-8 default of 10 days when none requested'],
    [600, 600, 'honoured inside the bounds'],
    [10, 300, 'RT-11 raised to the minimum'],
    [99_999_999, 2_678_400, 'WH-13 never perpetual: lowered to the maximum'],
    [0, 864_000, 'zero is no request'],
    [-5, 864_000, 'negative is no request'],
    [1000.7, 1000, 'whole seconds'],
  ];
  for (const [requested, granted, why] of rows)
    assert.equal(grantLease(requested, bounds), granted, why);
});

test('WH-19, RT-16: outcome classification', () => {
  const rows: [number, DeliveryOutcome['kind']][] = [
    [200, 'delivered'],
    [202, 'delivered'],
    [204, 'delivered'],
    [299, 'delivered'],
    [301, 'failed'],
    [302, 'failed'],
    [307, 'failed'],
    [308, 'failed'], // WH-19: 3xx is failure, never followed
    [400, 'failed'],
    [404, 'failed'],
    [409, 'failed'],
    [500, 'failed'],
    [503, 'failed'],
    [410, 'gone'],
  ];
  for (const [status, kind] of rows)
    assert.equal(classifyStatus(status).kind, kind, `status ${status}`);
  assert.deepEqual(
    classifyError(Object.assign(new Error('x'), { code: 'UND_ERR_HEADERS_TIMEOUT' })),
    { kind: 'failed', code: 'UND_ERR_HEADERS_TIMEOUT' },
  );
  assert.deepEqual(classifyError(new Error('no code')), {
    kind: 'failed',
    code: 'RSN_DELIVERY_ERROR',
  });
});

test('WH-19, WH-20: retry next step (exponential, jittered, capped, bounded by age)', () => {
  const policy: RetryPolicy = { initialDelayMs: 100, maxDelayMs: 1_000, maxAgeMs: 10_000 };
  const now = 1_000_000;
  const failed: DeliveryOutcome = { kind: 'failed', status: 500 };
  const rows: {
    name: string;
    state: { attempts: number; firstFailedAt?: number };
    outcome: DeliveryOutcome;
    rand: number;
    expect: unknown;
  }[] = [
    {
      name: 'delivered advances',
      state: { attempts: 3, firstFailedAt: now - 500 },
      outcome: { kind: 'delivered', status: 200 },
      rand: 0.5,
      expect: { kind: 'advance' },
    },
    {
      name: 'WH-19 410 ends the subscription',
      state: { attempts: 0 },
      outcome: { kind: 'gone', status: 410 },
      rand: 0.5,
      expect: { kind: 'end' },
    },
    {
      name: 'first failure: delay in [initial/2, initial)',
      state: { attempts: 0 },
      outcome: failed,
      rand: 0,
      expect: { kind: 'retry', at: now + 50, attempts: 1, firstFailedAt: now },
    },
    {
      name: 'first failure, max jitter',
      state: { attempts: 0 },
      outcome: failed,
      rand: 0.999,
      expect: { kind: 'retry', at: now + 99, attempts: 1, firstFailedAt: now },
    },
    {
      name: 'third failure doubles twice',
      state: { attempts: 2, firstFailedAt: now - 300 },
      outcome: failed,
      rand: 0,
      expect: { kind: 'retry', at: now + 200, attempts: 3, firstFailedAt: now - 300 },
    },
    {
      name: 'capped at maxDelayMs',
      state: { attempts: 20, firstFailedAt: now - 5_000 },
      outcome: failed,
      rand: 0,
      expect: { kind: 'retry', at: now + 500, attempts: 21, firstFailedAt: now - 5_000 },
    },
    {
      name: 'never scheduled past the retry age',
      state: { attempts: 20, firstFailedAt: now - 9_900 },
      outcome: failed,
      rand: 0.999,
      expect: { kind: 'retry', at: now + 100, attempts: 21, firstFailedAt: now - 9_900 },
    },
    {
      name: 'promise 1: past the retry age it is given up',
      state: { attempts: 7, firstFailedAt: now - 10_000 },
      outcome: { kind: 'failed', code: 'ECONNRESET' },
      rand: 0.5,
      expect: 'give_up',
    },
  ];
  for (const row of rows) {
    const step = nextStep(
      { attempts: row.state.attempts, firstFailedAt: row.state.firstFailedAt },
      row.outcome,
      now,
      () => row.rand,
      policy,
    );
    if (row.expect === 'give_up') {
      assert.equal(step.kind, 'give_up', row.name);
      assert.match((step as { reason: string }).reason, /ECONNRESET/, row.name);
    } else assert.deepEqual(step, row.expect, row.name);
  }
  for (let a = 1; a < 12; a++) {
    const d = backoffDelay(a, policy, Math.random);
    assert.ok(d >= 1 && d <= policy.maxDelayMs, `attempt ${a}: ${d}`);
  }
});

test('WH-12: verification succeeds only on 2xx with the exact challenge', () => {
  const rows: [number, string, string][] = [
    [200, 'abc', 'verified'],
    [204, 'abc', 'verified'],
    [299, 'abc', 'verified'],
    [200, 'abc\n', 'refused'],
    [200, 'ABC', 'refused'],
    [200, '', 'refused'],
    [200, '"abc"', 'refused'],
    [302, 'abc', 'refused'],
    [404, 'abc', 'refused'],
    [500, 'abc', 'refused'],
  ];
  for (const [status, body, kind] of rows)
    assert.equal(
      judgeVerification(status, body, 'abc').kind,
      kind,
      `${status} ${JSON.stringify(body)}`,
    );
});

test('WH-7, WH-11, WH-14: verification and denial URLs keep the callback query and add hub.* with &', () => {
  const rows: [string, Parameters<typeof verificationUrl>[1], string][] = [
    [
      'http://c.test/cb',
      { mode: 'subscribe', topic: 'http://s.test/t?a=1', challenge: 'ch', leaseSeconds: 600 },
      'http://c.test/cb?hub.mode=subscribe&hub.topic=http%3A%2F%2Fs.test%2Ft%3Fa%3D1&hub.challenge=ch&hub.lease_seconds=600',
    ],
    [
      'http://c.test/cb?id=7&hub.mode=keep',
      { mode: 'unsubscribe', topic: 'http://s.test/t', challenge: 'ch' },
      'http://c.test/cb?id=7&hub.mode=keep&hub.mode=unsubscribe&hub.topic=http%3A%2F%2Fs.test%2Ft&hub.challenge=ch',
    ],
    [
      'http://c.test/cb?',
      { mode: 'denied', topic: 'http://s.test/t', reason: 'not allowed' },
      'http://c.test/cb?hub.mode=denied&hub.topic=http%3A%2F%2Fs.test%2Ft&hub.reason=not+allowed',
    ],
  ];
  for (const [cb, p, expected] of rows) assert.equal(verificationUrl(cb, p), expected);
});

const hash = (t: string) => createHash('sha256').update(t).digest('hex');
const sources: SourceRecord[] = [
  {
    id: 1,
    name: 'a',
    tokenHash: hash('tok-a'),
    topicPrefixes: ['http://a.test/'],
    callbackPrefixes: [],
    createdAt: 0,
  },
  {
    id: 2,
    name: 'b',
    tokenHash: hash('tok-b'),
    topicPrefixes: ['http://a.test/b/'],
    callbackPrefixes: ['https://allowed.test/'],
    createdAt: 0,
  },
];

test('RT-5, RT-7: publish authorization by the token of the Source owning the longest matching prefix', () => {
  assert.equal(findOwner(sources, 'http://a.test/x')?.name, 'a');
  assert.equal(findOwner(sources, 'http://a.test/b/x')?.name, 'b');
  assert.equal(findOwner(sources, 'http://other.test/x'), undefined);
  const rows: [string, string | undefined, boolean, unknown][] = [
    ['http://a.test/x', 'tok-a', false, { ok: true }],
    ['http://a.test/b/x', 'tok-a', false, { ok: false, status: 403 }], // one Source never publishes into another's channel
    ['http://a.test/b/x', 'tok-b', false, { ok: true }],
    ['http://a.test/x', undefined, false, { ok: false, status: 401 }],
    ['http://a.test/x', 'nope', false, { ok: false, status: 403 }],
    ['http://other.test/x', 'tok-a', false, { ok: false, status: 403 }],
    ['http://other.test/x', undefined, true, { ok: true }],
  ];
  for (const [topic, token, open, expect] of rows) {
    const d = authorizePublish(sources, topic, token, open);
    const got = d.ok ? { ok: true } : { ok: false, status: d.status };
    assert.deepEqual(got, expect, `${topic} ${token} open=${open}`);
  }
  assert.equal(bearerToken('Bearer abc'), 'abc');
  assert.equal(bearerToken('bearer  abc '), 'abc');
  assert.equal(bearerToken('Basic abc'), undefined);
  assert.equal(bearerToken(undefined), undefined);
});

test("WH-14: denial by the owning Source's callback allow-list", () => {
  assert.equal(
    subscriptionDenialReason(sources, 'http://a.test/x', 'http://anything.test/cb'),
    undefined,
  );
  assert.equal(
    subscriptionDenialReason(sources, 'http://a.test/b/x', 'https://allowed.test/cb/1'),
    undefined,
  );
  assert.match(
    subscriptionDenialReason(sources, 'http://a.test/b/x', 'https://evil.test/cb') ?? '',
    /not allowed/,
  );
  assert.equal(
    subscriptionDenialReason(sources, 'http://unowned.test/x', 'https://evil.test/cb'),
    undefined,
  );
});

test('RT-4, M-1, M-4: intake routing and Link checks', () => {
  for (const [ct, xml, formish] of [
    ['application/xml', true, false],
    ['application/xml; charset=utf-8', true, false],
    ['text/xml', true, false],
    ['application/atom+xml', true, false],
    ['application/json', false, false],
    [undefined, false, false],
    ['application/x-www-form-urlencoded', false, true],
    ['application/x-www-form-urlencoded; charset=UTF-8', false, true],
  ] as const) {
    assert.equal(isXmlContentType(ct), xml, `xml ${ct}`);
    assert.equal(isFormContentType(ct), formish, `form ${ct}`);
  }
  const rows: [string | undefined, number | 'ok'][] = [
    ['<http://s.test/t>; rel="self", <http://h.test/hub>; rel="hub"', 'ok'],
    [
      '<http://s.test/t>; rel="self", <http://h.test/hub>; rel="hub", <http://s.test/cl.xml>; rel="resourcesync"',
      'ok',
    ],
    ['<http://s.test/t>; rel="self hub"', 'ok'],
    [undefined, 400],
    ['<http://h.test/hub>; rel="hub"', 400],
    ['<http://s.test/t>; rel="self"', 400],
    [
      '<http://s.test/t>; rel="self", <http://s.test/u>; rel="self", <http://h.test/hub>; rel="hub"',
      400,
    ],
    ['<mailto:x@y>; rel="self", <http://h.test/hub>; rel="hub"', 400],
  ];
  for (const [link, expect] of rows) {
    const r = readIntakeLinks(link);
    assert.equal(r.ok ? 'ok' : r.status, expect, String(link));
  }
});

test('RT-2, RT-6: topic conformance judgement', () => {
  assert.deepEqual(
    topicProblems(
      200,
      'application/xml',
      '<http://s.test/t>; rel="self", <http://h.test/hub>; rel="hub"',
    ),
    [],
  );
  assert.equal(
    topicProblems(
      404,
      'application/xml',
      '<http://s.test/t>; rel="self", <http://h.test/hub>; rel="hub"',
    ).length,
    1,
  );
  assert.equal(topicProblems(200, 'text/html', undefined).length, 3);
});
