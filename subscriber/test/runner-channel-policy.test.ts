// When the runner looks at a Source's channel again and what a fresh look means (WS-3, RA-4), as
// tables over plain data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ACTIVATION_SETTLE_READS,
  activationSettling,
  channelChange,
  pollRediscoveryIntervalMs,
  rediscoverBeforeRenewal,
  rediscoveryDue,
  type ActivationFacts,
  type ChannelFacts,
} from '../src/runner/index.js';
import type { SubscriptionAction } from '../src/subscription/index.js';

const push = (hub = 'http://hub/a', topic = 'http://src/t'): ChannelFacts => ({
  mode: 'push',
  hub,
  topic,
});
const poll: ChannelFacts = { mode: 'poll' };
const unknown: ChannelFacts = { mode: 'unknown' };

test('WS-3: what a fresh discovery means for the channel', () => {
  const rows: [string, ChannelFacts, ChannelFacts, string][] = [
    ['first discovery, push', unknown, push(), 'first'],
    ['first discovery, poll', unknown, poll, 'first'],
    ['same channel', push(), push(), 'unchanged'],
    ['still polling', poll, poll, 'unchanged'],
    ['channel gone', push(), poll, 'dropped'],
    ['channel back', poll, push(), 'restored'],
    ['hub moved (RA-4)', push(), push('http://hub/b'), 'moved'],
    ['topic moved (WS-2 self)', push(), push('http://hub/a', 'http://src/t2'), 'moved'],
  ];
  for (const [why, before, after, kind] of rows)
    assert.equal(channelChange(before, after).kind, kind, why);
  const d = channelChange(push(), poll);
  assert.equal(d.kind === 'dropped' && d.reason, 'not-advertised');
});

test('WS-3: discovery runs again before a renewal, not before the first subscribe nor right after one', () => {
  const subscribe = (reason: Extract<SubscriptionAction, { kind: 'subscribe' }>['reason']) =>
    [{ kind: 'subscribe', reason, attempt: 1 }] as SubscriptionAction[];
  const rows: [string, SubscriptionAction[], number, boolean][] = [
    ['renewal, discovery 80 s old', subscribe('renew'), 80_000, true],
    ['retry after expiry', subscribe('expired'), 80_000, true],
    ['renewal right after a discovery', subscribe('renew'), 5_000, false],
    ['the first subscribe', subscribe('initial'), 80_000, false],
    ['no subscribe at all', [{ kind: 'expire', subscriptionId: 1 }], 80_000, false],
    ['nothing to do', [], 80_000, false],
  ];
  for (const [why, actions, age, expected] of rows)
    assert.equal(rediscoverBeforeRenewal(actions, 1_000_000, 1_000_000 - age), expected, why);
});

test('polling mode looks for a restored channel every tenth poll, within [pollInterval, 1 h]', () => {
  assert.equal(pollRediscoveryIntervalMs(30_000), 300_000);
  assert.equal(pollRediscoveryIntervalMs(1_000), 10_000);
  assert.equal(pollRediscoveryIntervalMs(3_600_000), 3_600_000);
  assert.equal(rediscoveryDue(300_000, 0, 30_000), true);
  assert.equal(rediscoveryDue(299_999, 0, 30_000), false);
});

test('WS-8, WH-9, M-7: after a fresh activation the lists are read again until they prove past it', () => {
  const settleBy = 10_000;
  const base: ActivationFacts = {
    positionMs: 9_000,
    settleByMs: settleBy,
    reads: 0,
    delivered: false,
  };
  const rows: [string, Partial<ActivationFacts>, string][] = [
    ['position short of settleBy: read again', {}, 'read-again'],
    ['position at settleBy: proven', { positionMs: settleBy }, 'settled'],
    ['position past settleBy: proven', { positionMs: settleBy + 1 }, 'settled'],
    ['a delivery arrived: the ordering sees any gap (RN-5)', { delivered: true }, 'settled'],
    [
      'no position to move (waiting for the first notification)',
      { positionMs: undefined },
      'settled',
    ],
    ['one read left', { reads: ACTIVATION_SETTLE_READS - 1 }, 'read-again'],
    ['reads ran out, nothing proven', { reads: ACTIVATION_SETTLE_READS }, 'unproven'],
    [
      'reads ran out but proven',
      { reads: ACTIVATION_SETTLE_READS, positionMs: settleBy },
      'settled',
    ],
    ['not established yet (-Infinity)', { positionMs: -Infinity }, 'read-again'],
  ];
  for (const [name, patch, want] of rows)
    assert.equal(activationSettling({ ...base, ...patch }).kind, want, name);
});
