// The catch-up verdict as a table (RC-21..RC-24, M-7): from what one step read and applied, with or
// without an end, the record it leaves, the one metric result and log event, and what comes next.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDateTime } from '@rsnotify/shared';
import { judgeCatchUp, type CatchUpFacts } from '../src/catchup/index.js';

const t = (s: number) => parseDateTime(`2026-01-01T00:00:${String(s).padStart(2, '0')}Z`);
const collected = (p: Partial<Extract<CatchUpFacts, { kind: 'collected' }>>): CatchUpFacts => ({
  kind: 'collected',
  changes: 3,
  reachesPosition: true,
  failed: 0,
  ...p,
});

test('RC-21..RC-24: each outcome of a catch-up step, to the end of a gap and to now', () => {
  // [why, facts, end, result, state, metric, event, next]
  const rows: [string, CatchUpFacts, number | undefined, string, string, string, string, string][] =
    [
      [
        'gap fully proven',
        collected({ coveredTo: t(20) }),
        20,
        'done',
        'done',
        'done',
        'catchup.completed',
        'caught-up 20',
      ],
      [
        'gap proven in part (a lagging list)',
        collected({ coveredTo: t(15) }),
        20,
        'partial',
        'partial',
        'partial',
        'catchup.partial',
        'caught-up 15',
      ],
      [
        'gap: nothing proven past the position',
        collected({}),
        20,
        'unproven',
        'partial',
        'partial',
        'catchup.incomplete',
        'retry',
      ],
      [
        'gap: a change failed',
        collected({ coveredTo: t(20), failed: 2 }),
        20,
        'failed',
        'failed',
        'failed',
        'catchup.incomplete',
        'retry',
      ],
      [
        'to now: proven',
        collected({ coveredTo: t(30) }),
        undefined,
        'done',
        'done',
        'done',
        'catchup.completed',
        'caught-up 30',
      ],
      [
        'to now: quiet Source, lists reach the position',
        collected({ changes: 0 }),
        undefined,
        'up-to-date',
        'done',
        'up-to-date',
        'catchup.up_to_date',
        'nothing',
      ],
      [
        'to now: no list proves where it starts',
        collected({ reachesPosition: false }),
        undefined,
        'unproven',
        'partial',
        'partial',
        'catchup.incomplete',
        'retry',
      ],
      [
        'to now: a change failed',
        collected({ coveredTo: t(30), failed: 1 }),
        undefined,
        'failed',
        'failed',
        'failed',
        'catchup.incomplete',
        'retry',
      ],
      [
        'history gone (no-from)',
        { kind: 'history-gone', reason: 'no-from' },
        20,
        'history-gone',
        'history-gone',
        'history-gone',
        'catchup.history_gone',
        're-baseline',
      ],
      [
        'history gone (from-after-position)',
        { kind: 'history-gone', reason: 'from-after-position' },
        undefined,
        'history-gone',
        'history-gone',
        'history-gone',
        'catchup.history_gone',
        're-baseline',
      ],
      [
        'lists unreadable',
        { kind: 'error', code: 'RSN_CATCHUP_HTTP_STATUS', message: 'HTTP 500' },
        20,
        'failed',
        'failed',
        'failed',
        'catchup.failed',
        'retry',
      ],
    ];
  for (const [why, facts, end, result, state, metric, event, next] of rows) {
    const v = judgeCatchUp(facts, end === undefined ? undefined : t(end));
    const nextText =
      v.next.kind === 'caught-up' ? `caught-up ${v.next.to.lexical.slice(17, 19)}` : v.next.kind;
    assert.deepEqual(
      [v.result, v.state, v.metric, v.event, nextText],
      [result, state, metric, event, next],
      why,
    );
  }
});

test('a failed or unproven step says why; history gone says which rule; only a complete step clears the error', () => {
  assert.equal(
    judgeCatchUp(collected({ failed: 2, coveredTo: t(20) }), t(20)).why,
    '2 change(s) failed',
  );
  assert.equal(judgeCatchUp(collected({}), t(20)).why, 'the Change Lists do not cover the gap yet');
  assert.equal(judgeCatchUp({ kind: 'history-gone', reason: 'no-from' }, undefined).why, 'no-from');
  assert.equal(judgeCatchUp(collected({ coveredTo: t(20) }), t(20)).clearsError, true);
  assert.equal(judgeCatchUp(collected({ coveredTo: t(15) }), t(20)).clearsError, false);
  const failed = judgeCatchUp({ kind: 'error', message: 'HTTP 500' }, undefined);
  assert.equal(failed.setsError, 'catch-up failed: HTTP 500');
  assert.equal(failed.level, 'warn');
});
