import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_LEASE_POLICY,
  decideDelivery,
  decideVerification,
  planSubscription,
  renewAtFor,
  retryDelayMs,
  type LeasePolicy,
} from '../src/subscription/index.js';
import type { SubscriptionRecord } from '../src/store/repository.js';

const policy: LeasePolicy = {
  ...DEFAULT_LEASE_POLICY,
  retryInitialMs: 1_000,
  retryMaxMs: 60_000,
  verificationTimeoutMs: 10_000,
};
const T0 = 1_700_000_000_000;
const hub = 'http://hub.example/hub';
const topic = 'http://src.example/topic';

let nextId = 1;
function sub(p: Partial<SubscriptionRecord>): SubscriptionRecord {
  return {
    id: nextId++,
    sourceId: 1,
    hub,
    topic,
    callbackToken: `t${nextId}`,
    callbackUrl: `http://cb/callback/t${nextId}`,
    secret: 's',
    state: 'pending-subscribe',
    requestedAt: T0,
    attempt: 1,
    updatedAt: T0,
    ...p,
  };
}

test('renewAt is verifiedAt + 0.8 * lease (RT-13)', () => {
  assert.equal(renewAtFor(T0, 1000), T0 + 800_000);
  assert.equal(renewAtFor(T0, 10, { renewFraction: 0.5 }), T0 + 5_000);
});

test('retry backoff doubles, is capped, and jitters within [50%, 100%]', () => {
  assert.equal(
    retryDelayMs(1, policy, () => 1),
    1_000,
  );
  assert.equal(
    retryDelayMs(3, policy, () => 1),
    4_000,
  );
  assert.equal(
    retryDelayMs(30, policy, () => 1),
    60_000,
  );
  assert.equal(
    retryDelayMs(3, policy, () => 0),
    2_000,
  );
});

test('WS-8: the challenge is echoed only for a pending request with matching mode and topic', () => {
  const pending = sub({ state: 'pending-subscribe', requestedLeaseSeconds: 600 });
  const ok = decideVerification(
    pending,
    { mode: 'subscribe', topic, challenge: 'abc', leaseSeconds: '300' },
    T0 + 5,
  );
  assert.equal(ok.kind, 'confirm');
  assert.equal(ok.kind === 'confirm' && ok.challenge, 'abc');
  // WS-9: the granted lease (not the requested one) counts from the verification.
  assert.equal(ok.kind === 'confirm' && ok.patch.leaseExpiresAt, T0 + 5 + 300_000);
  assert.equal(ok.kind === 'confirm' && ok.patch.state, 'active');
  const rows: [string, SubscriptionRecord | undefined, Record<string, string>][] = [
    ['unknown callback', undefined, { mode: 'subscribe', topic, challenge: 'x' }],
    [
      'wrong topic',
      pending,
      { mode: 'subscribe', topic: 'http://src.example/other', challenge: 'x' },
    ],
    ['wrong mode', pending, { mode: 'unsubscribe', topic, challenge: 'x' }],
    ['no challenge', pending, { mode: 'subscribe', topic }],
    ['already active', sub({ state: 'active' }), { mode: 'subscribe', topic, challenge: 'x' }],
    ['abandoned', sub({ state: 'abandoned' }), { mode: 'subscribe', topic, challenge: 'x' }],
  ];
  for (const [why, rec, q] of rows)
    assert.equal(decideVerification(rec, q, T0).kind, 'reject', why);
});

test('WS-8: topics compare after decoding percent-encoded unreserved characters (WH-6)', () => {
  const pending = sub({ topic: 'http://src.example/~user/topic' });
  assert.equal(
    decideVerification(
      pending,
      {
        mode: 'subscribe',
        topic: 'http://src.example/%7Euser/topic',
        challenge: 'c',
        leaseSeconds: '60',
      },
      T0,
    ).kind,
    'confirm',
  );
  assert.equal(
    decideVerification(
      pending,
      {
        mode: 'subscribe',
        topic: 'http://src.example/%2Fuser/topic',
        challenge: 'c',
        leaseSeconds: '60',
      },
      T0,
    ).kind,
    'reject',
  );
});

test('WS-9/WS-19: an unsubscribe verification needs a pending unsubscribe and ignores the lease', () => {
  const d = decideVerification(
    sub({ state: 'pending-unsubscribe' }),
    { mode: 'unsubscribe', topic, challenge: 'c', leaseSeconds: '99' },
    T0,
  );
  assert.equal(d.kind, 'confirm');
  assert.equal(d.kind === 'confirm' && d.patch.state, 'unsubscribed');
  assert.equal(d.kind === 'confirm' && d.patch.leaseExpiresAt, undefined);
  assert.equal(
    decideVerification(sub({ state: 'active' }), { mode: 'unsubscribe', topic, challenge: 'c' }, T0)
      .kind,
    'reject',
  );
});

test('WS-10: a denial is recorded (answered 2xx by the intake)', () => {
  const d = decideVerification(
    sub({ state: 'pending-subscribe' }),
    { mode: 'denied', topic, reason: 'not allowed' },
    T0,
  );
  assert.equal(d.kind, 'denied');
  assert.equal(d.kind === 'denied' && d.patch.deniedReason, 'not allowed');
});

test('WS-12: deliveries to unsubscribed/denied callbacks are gone (410); unknown ones are not found', () => {
  assert.equal(decideDelivery(undefined).kind, 'unknown');
  assert.equal(decideDelivery(sub({ state: 'unsubscribed' })).kind, 'gone');
  assert.equal(decideDelivery(sub({ state: 'denied' })).kind, 'gone');
  assert.equal(decideDelivery(sub({ state: 'active' })).kind, 'accept');
  assert.equal(decideDelivery(sub({ state: 'pending-unsubscribe' })).kind, 'accept');
});

const plan = (
  subs: SubscriptionRecord[],
  now: number,
  extra: { disabled?: boolean; target?: { hub: string; topic: string } | null } = {},
) =>
  planSubscription({
    target: extra.target === null ? undefined : (extra.target ?? { hub, topic }),
    disabled: extra.disabled ?? false,
    subs,
    now,
    policy,
    random: () => 1,
  });

test('no subscription yet: subscribe', () => {
  assert.deepEqual(plan([], T0).actions, [{ kind: 'subscribe', reason: 'initial', attempt: 1 }]);
});

test('RT-13: an active lease is kept until renewAt, then renewed with a new callback', () => {
  const active = sub({
    state: 'active',
    verifiedAt: T0,
    leaseSeconds: 100,
    leaseExpiresAt: T0 + 100_000,
    renewAt: T0 + 80_000,
  });
  const before = plan([active], T0 + 1_000);
  assert.deepEqual(before.actions, []);
  assert.equal(before.wakeAt, T0 + 80_000);
  const at = plan([active], T0 + 80_000);
  assert.deepEqual(at.actions, [
    { kind: 'subscribe', reason: 'renew', attempt: 1, renewsId: active.id },
  ]);
});

test('WS-7: a pending request is waited for, then abandoned and retried after the verification timeout', () => {
  const pending = sub({ state: 'pending-subscribe', requestedAt: T0 });
  assert.deepEqual(plan([pending], T0 + 1_000).actions, []);
  assert.equal(plan([pending], T0 + 1_000).wakeAt, T0 + 10_000);
  const late = plan([pending], T0 + 10_000).actions;
  assert.deepEqual(late, [
    { kind: 'abandon', subscriptionId: pending.id, why: 'no verification in time' },
    { kind: 'subscribe', reason: 'retry', attempt: 2 },
  ]);
});

test('hub down: a failed request is retried with growing backoff', () => {
  const failed = sub({ state: 'abandoned', attempt: 3, updatedAt: T0, lastError: 'ECONNREFUSED' });
  const p = plan([failed], T0 + 1);
  assert.deepEqual(p.actions, []);
  assert.equal(p.wakeAt, T0 + 4_000);
  assert.deepEqual(plan([failed], T0 + 4_000).actions, [
    { kind: 'subscribe', reason: 'retry', attempt: 4 },
  ]);
});

test('WS-10: after a denial nothing is retried in a loop; the denial is reported', () => {
  const denied = sub({ state: 'denied', deniedReason: 'nope' });
  const p = plan([denied], T0 + 999_999);
  assert.deepEqual(p.actions, []);
  assert.equal(p.denied?.id, denied.id);
});

test('renewal verified: the previous callback is unsubscribed', () => {
  const old = sub({
    state: 'active',
    verifiedAt: T0,
    leaseExpiresAt: T0 + 100_000,
    renewAt: T0 + 80_000,
  });
  const renewed = sub({
    state: 'active',
    verifiedAt: T0 + 80_000,
    leaseExpiresAt: T0 + 180_000,
    renewAt: T0 + 160_000,
    renewsId: old.id,
  });
  assert.deepEqual(plan([old, renewed], T0 + 81_000).actions, [
    { kind: 'unsubscribe', subscriptionId: old.id, why: 'renewed' },
  ]);
});

test('an expired lease is marked expired and subscribed again', () => {
  const active = sub({
    state: 'active',
    verifiedAt: T0,
    leaseExpiresAt: T0 + 100_000,
    renewAt: T0 + 80_000,
  });
  const p = plan([active], T0 + 100_000);
  assert.deepEqual(p.actions[0], { kind: 'expire', subscriptionId: active.id });
  assert.equal(p.actions[1]?.kind, 'subscribe');
});

test('WS-3/RA-4: a moved topic subscribes on the new channel; the old one is dropped once the new one is active', () => {
  const old = sub({
    state: 'active',
    verifiedAt: T0,
    leaseExpiresAt: T0 + 100_000,
    renewAt: T0 + 80_000,
  });
  const moved = { hub, topic: 'http://src.example/new-topic' };
  assert.deepEqual(plan([old], T0 + 1, { target: moved }).actions, [
    { kind: 'subscribe', reason: 'migrate', attempt: 1 },
  ]);
  const fresh = sub({
    topic: moved.topic,
    state: 'active',
    verifiedAt: T0 + 2,
    leaseExpiresAt: T0 + 100_002,
    renewAt: T0 + 80_002,
  });
  assert.deepEqual(plan([old, fresh], T0 + 3, { target: moved }).actions, [
    { kind: 'unsubscribe', subscriptionId: old.id, why: 'migrated' },
  ]);
  // RA-4: the channel disappeared -> unsubscribe, poll instead.
  assert.deepEqual(plan([fresh], T0 + 4, { target: null }).actions, [
    { kind: 'unsubscribe', subscriptionId: fresh.id, why: 'channel-removed' },
  ]);
});

test('WS-19: a disabled source unsubscribes its active subscriptions and does not subscribe', () => {
  const active = sub({
    state: 'active',
    verifiedAt: T0,
    leaseExpiresAt: T0 + 100_000,
    renewAt: T0 + 80_000,
  });
  assert.deepEqual(plan([active], T0 + 1, { disabled: true }).actions, [
    { kind: 'unsubscribe', subscriptionId: active.id, why: 'disabled' },
  ]);
  assert.deepEqual(plan([], T0 + 1, { disabled: true }).actions, []);
});
