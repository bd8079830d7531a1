// Pure delivery policies of the hub, table-driven: what a delivery POST came to (WH-19, RT-16) and the
// retry next step (WH-19, WH-20).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  backoffDelay,
  classifyError,
  classifyStatus,
  nextStep,
  type DeliveryOutcome,
  type RetryPolicy,
} from '@rsnotify/hub';

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
