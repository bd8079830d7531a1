// The subscriber's ordering engine (RN-5, M-7) with a backlog: a Source that fell behind, or a gap
// that stays open, leaves thousands of notifications buffered. Each is received behind the gap, then
// one catch-up closes it and the backlog drains (apply, applied, ...). The figure is CPU per
// notification with a 20,000 backlog; the baseline is the same with a 1,000 backlog, so a ratio near 1
// says the cost per notification does not grow with the backlog (linear in all), where copying and
// scanning the buffer per notification made it grow with it (quadratic in all). In-process and pure:
// no I/O, median of 5 alternated runs each.
import { dateTimeFromMicros } from '@rsnotify/shared';
import {
  applied,
  caughtUp,
  initialOrderingState,
  receive,
  type OrderingOptions,
  type OrderingState,
} from '../../../subscriber/src/ordering/index.js';
import type { BenchContext, BenchRow, BenchScenario } from '../types.js';
import { describeRange, interleave, spread } from '../lib/measure.js';

const BASE = 1_800_000_000_000_000n;
const at = (us: number) => dateTimeFromMicros(BASE + BigInt(us));
const opts: OrderingOptions = { gapTimeoutMs: 1e12 };

/** µs of CPU per notification to buffer `n` behind a gap and drain them after the catch-up. */
function backlog(n: number): number {
  const notes = Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    from: at((i + 1) * 10),
    until: at((i + 1) * 10 + 10),
    receivedAt: 0,
  }));
  const started = process.cpuUsage();
  let state: OrderingState = initialOrderingState(at(0));
  for (const note of notes) state = receive(state, note, 0, opts).state;
  let out = caughtUp(state, at(10), 1, opts);
  let drained = 0;
  for (let e = out.effects[0]; e?.kind === 'apply'; e = out.effects[0]) {
    drained++;
    out = applied(out.state, e.id, 2, opts);
  }
  const used = process.cpuUsage(started);
  if (drained !== n) throw new Error(`drained ${drained} of ${n}`);
  return (used.user + used.system) / n;
}

const scenario: BenchScenario = {
  name: 'ordering backlog',
  run(ctx: BenchContext): Promise<BenchRow[]> {
    const large = Math.max(2_000, Math.round(20_000 * ctx.scale));
    const small = Math.max(200, Math.round(1_000 * ctx.scale));
    backlog(small); // warm-up (JIT)
    return interleave(5, {
      small: () => Promise.resolve(backlog(small)),
      large: () => Promise.resolve(backlog(large)),
    }).then((r) => {
      const s = spread(r.small);
      const l = spread(r.large);
      return [
        {
          scenario: 'subscriber ordering',
          figure: `CPU per notification, ${large.toLocaleString('en-US')} buffered behind a gap then drained`,
          value: l.median,
          unit: 'µs',
          range: describeRange(l),
          baseline: {
            label: `the same with ${small.toLocaleString('en-US')} buffered`,
            value: s.median,
            unit: 'µs',
            range: describeRange(s),
          },
          ratio: l.median / s.median,
          target: 'ratio ~1 (linear)',
          note: 'receive behind a gap, one caughtUp, then apply/applied until drained; pure, in-process',
        },
      ];
    });
  },
};

export default scenario;
