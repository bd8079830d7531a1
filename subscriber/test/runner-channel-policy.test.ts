// When the runner looks at a Source's channel again and what a fresh look means (WS-3, RA-4), as
// tables over plain data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  channelChange,
  pollRediscoveryIntervalMs,
  rediscoverBeforeRenewal,
  rediscoveryDue,
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
