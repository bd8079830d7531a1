// The pure WebSub decisions the intake maps to HTTP answers, as tables: verification of intent
// (WS-8..WS-10, WS-19) for every subscription state and mode, and a delivery's signature
// (WS-14..WS-16).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { signatureHeader } from '@rsnotify/shared';
import {
  decideSignature,
  decideVerification,
  type VerificationQuery,
} from '../src/subscription/index.js';
import type { SubscriptionRecord, SubscriptionState } from '../src/store/index.js';

const T0 = 1_700_000_000_000;
const topic = 'http://src.example/topic';

function sub(state: SubscriptionState): SubscriptionRecord {
  return {
    id: 1,
    sourceId: 1,
    hub: 'http://hub.example/hub',
    topic,
    callbackToken: 't',
    callbackUrl: 'http://cb/callback/t',
    secret: 's',
    state,
    requestedLeaseSeconds: 600,
    requestedAt: T0,
    attempt: 1,
    updatedAt: T0,
  };
}

const STATES: SubscriptionState[] = [
  'pending-subscribe',
  'active',
  'pending-unsubscribe',
  'unsubscribed',
  'denied',
  'expired',
  'abandoned',
];

const subscribeQ: VerificationQuery = {
  mode: 'subscribe',
  topic,
  challenge: 'c1',
  leaseSeconds: '60',
};
const unsubscribeQ: VerificationQuery = { mode: 'unsubscribe', topic, challenge: 'c2' };
const deniedQ: VerificationQuery = { mode: 'denied', topic, reason: 'no' };

test('WS-8/WS-19: only the pending request of the same mode is confirmed, for every state', () => {
  // [state, subscribe, unsubscribe, denied]
  const table: [SubscriptionState, string, string, string][] = [
    ['pending-subscribe', 'confirm', 'reject', 'denied'],
    ['active', 'reject', 'reject', 'denied'],
    ['pending-unsubscribe', 'reject', 'confirm', 'denied'],
    ['unsubscribed', 'reject', 'reject', 'reject'],
    ['denied', 'reject', 'reject', 'denied'],
    ['expired', 'reject', 'reject', 'denied'],
    ['abandoned', 'reject', 'reject', 'reject'],
  ];
  assert.deepEqual(
    table.map((r) => r[0]),
    STATES,
    'every state is in the table',
  );
  for (const [state, onSubscribe, onUnsubscribe, onDenied] of table) {
    const rec = sub(state);
    assert.equal(decideVerification(rec, subscribeQ, T0).kind, onSubscribe, `${state} subscribe`);
    assert.equal(
      decideVerification(rec, unsubscribeQ, T0).kind,
      onUnsubscribe,
      `${state} unsubscribe`,
    );
    assert.equal(decideVerification(rec, deniedQ, T0).kind, onDenied, `${state} denied`);
  }
});

test('WS-8: malformed verifications are refused whatever the state', () => {
  const rows: [string, VerificationQuery][] = [
    ['no mode', { topic, challenge: 'c' }],
    ['no topic', { mode: 'subscribe', challenge: 'c' }],
    ['empty challenge', { mode: 'subscribe', topic, challenge: '' }],
    ['unknown mode', { mode: 'publish', topic, challenge: 'c' }],
    ['other topic', { mode: 'subscribe', topic: 'http://src.example/other', challenge: 'c' }],
  ];
  for (const [why, q] of rows)
    for (const state of STATES)
      assert.equal(decideVerification(sub(state), q, T0).kind, 'reject', `${why} (${state})`);
  assert.equal(decideVerification(undefined, subscribeQ, T0).kind, 'reject', 'unknown callback');
});

test('WS-9: the granted lease counts from the verification; a missing or bad one falls back to the requested lease', () => {
  const rows: [string | undefined, number][] = [
    ['60', 60],
    [undefined, 600],
    ['0', 600],
    ['-5', 600],
    ['1e3', 600],
  ];
  for (const [given, lease] of rows) {
    const d = decideVerification(
      sub('pending-subscribe'),
      { ...subscribeQ, leaseSeconds: given },
      T0,
    );
    assert.equal(d.kind, 'confirm');
    if (d.kind !== 'confirm') continue;
    assert.equal(d.challenge, 'c1', 'WS-8: the challenge is echoed');
    assert.equal(d.patch.leaseSeconds, lease, `lease_seconds=${given}`);
    assert.equal(d.patch.leaseExpiresAt, T0 + lease * 1000);
  }
});

test('WS-14..WS-16: a delivery is accepted, refused (403) or ignored (2xx) by its signature', () => {
  // Any bytes do: only the signature over them is judged.
  const body = Buffer.from('<urlset/>');
  const good = signatureHeader('sha256', 'secret', body);
  const rows: [string, string | undefined, string | undefined, string][] = [
    ['no secret, no signature', undefined, undefined, 'accept:unsigned'],
    ['no secret, any signature', undefined, 'sha256=00', 'accept:unsigned'],
    ['secret, valid signature', 'secret', good, 'accept:ok'],
    ['secret, no signature (WS-16)', 'secret', undefined, 'refuse-unsigned'],
    ['secret, wrong digest (WS-15)', 'secret', 'sha256=' + '0'.repeat(64), 'ignore:mismatch'],
    [
      'secret, other secret (WS-15)',
      'secret',
      signatureHeader('sha256', 'other', body),
      'ignore:mismatch',
    ],
    ['secret, unknown method', 'secret', 'md5=abc', 'ignore:unsupported-method'],
    ['secret, malformed header', 'secret', 'garbage', 'ignore:malformed'],
  ];
  for (const [why, secret, header, expected] of rows) {
    const d = decideSignature(secret, header, body);
    const got =
      d.kind === 'accept'
        ? `accept:${d.signature}`
        : d.kind === 'ignore'
          ? `ignore:${d.reason}`
          : d.kind;
    assert.equal(got, expected, why);
  }
});
