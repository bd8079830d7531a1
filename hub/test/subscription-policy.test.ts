// Pure subscription policies of the hub, table-driven: request validation (WH-1..WH-10), the lease
// clamp and lapse rule (WH-13, RT-11, M-8), verification judgement and URLs (WH-7, WH-11, WH-12, WH-14).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { grantLease, judgeVerification, parseHubForm, verificationUrl } from '@rsnotify/hub';
// Internal modules are reached through relative paths: they are the hub's own, tested in its package.
import {
  activationEffect,
  hasLeaseLapsed,
  isLeaseActive,
  leaseExpiry,
  type ActivationEffect,
} from '../src/subscriptions/index.js';

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
      assert.equal(r.refusal, 'malformed', row.name);
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

test('WH-13: a lease lapses at its expiry instant; the lapse decides what a verified subscribe does', () => {
  const expiresAt = 1_000_000;
  const rows: [number, boolean, ActivationEffect, string][] = [
    [expiresAt - 1, false, 'renew', 'one millisecond before expiry the lease is live'],
    [expiresAt, true, 'restart', 'the expiry instant itself is lapsed'],
    [expiresAt + 1, true, 'restart', 'after expiry the lease is lapsed'],
    [0, false, 'renew', 'long before expiry'],
  ];
  for (const [now, lapsed, effect, why] of rows) {
    assert.equal(hasLeaseLapsed(expiresAt, now), lapsed, why);
    assert.equal(isLeaseActive(expiresAt, now), !lapsed, why);
    assert.equal(activationEffect({ leaseExpiresAt: expiresAt }, now), effect, why);
  }
  assert.equal(activationEffect(undefined, expiresAt), 'create', 'no subscription yet');
});

test('WH-13: the lease counts from the verification request', () => {
  const rows: [number, number, number][] = [
    [0, 300, 300_000],
    [5_000, 864_000, 864_005_000],
  ];
  for (const [sentAt, seconds, expiry] of rows) assert.equal(leaseExpiry(sentAt, seconds), expiry);
  // What the clamp grants and the lapse rule agree: a lease of N seconds is live for exactly N seconds.
  const expiresAt = leaseExpiry(
    1_000,
    grantLease(10, { minSeconds: 300, defaultSeconds: 864_000, maxSeconds: 2_678_400 }),
  );
  assert.equal(hasLeaseLapsed(expiresAt, 1_000 + 300_000 - 1), false);
  assert.equal(hasLeaseLapsed(expiresAt, 1_000 + 300_000), true);
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
