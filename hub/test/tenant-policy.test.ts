// Pure tenant and publishing policies of the hub, table-driven: publish authorization (RT-5, RT-7),
// the callback allow-list (WH-14), intake routing and Link checks (RT-4, M-1, M-4), topic conformance
// (RT-2, RT-6).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
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
    ['http://a.test/b/x', 'tok-a', false, { ok: false, refusal: 'wrong-token' }], // one Source never publishes into another's channel
    ['http://a.test/b/x', 'tok-b', false, { ok: true }],
    ['http://a.test/x', undefined, false, { ok: false, refusal: 'missing-token' }],
    ['http://a.test/x', 'nope', false, { ok: false, refusal: 'wrong-token' }],
    ['http://other.test/x', 'tok-a', false, { ok: false, refusal: 'not-owner' }],
    ['http://other.test/x', undefined, true, { ok: true }],
  ];
  for (const [topic, token, open, expect] of rows) {
    const d = authorizePublish(sources, topic, token, open);
    const got = d.ok ? { ok: true } : { ok: false, refusal: d.refusal };
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
  const rows: [string | undefined, 'malformed' | 'ok'][] = [
    ['<http://s.test/t>; rel="self", <http://h.test/hub>; rel="hub"', 'ok'],
    [
      '<http://s.test/t>; rel="self", <http://h.test/hub>; rel="hub", <http://s.test/cl.xml>; rel="resourcesync"',
      'ok',
    ],
    ['<http://s.test/t>; rel="self hub"', 'ok'],
    [undefined, 'malformed'],
    ['<http://h.test/hub>; rel="hub"', 'malformed'],
    ['<http://s.test/t>; rel="self"', 'malformed'],
    [
      '<http://s.test/t>; rel="self", <http://s.test/u>; rel="self", <http://h.test/hub>; rel="hub"',
      'malformed',
    ],
    ['<mailto:x@y>; rel="self", <http://h.test/hub>; rel="hub"', 'malformed'],
  ];
  for (const [link, expect] of rows) {
    const r = readIntakeLinks(link);
    assert.equal(r.ok ? 'ok' : r.refusal, expect, String(link));
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
