// Bench-only probe, preloaded (`--import`) into a measured process when BENCH_INFLIGHT=<dir> is set
// (lib/hub-processes.ts, lib/hub-arms.ts): how many undici requests that process has in flight,
// sampled every 2 ms, next to its event-loop utilization. Nothing in the process is changed: it
// listens on undici's diagnostics channels, which the hub and the raw sender share, so both are
// counted the same way. Two counts: `open` (created, not yet complete: queued in undici's pool or
// on a socket) and `wire` (headers written to a socket, not yet complete). Samples are appended to
// <dir>/<BENCH_PROBE_NAME>.csv as `ms since epoch,open,wire,elu`; lib/inflight-summary.ts reads them.
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { subscribe } from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';

const dir = process.env.BENCH_INFLIGHT;
if (dir) {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${process.env.BENCH_PROBE_NAME ?? 'process'}.csv`);
  const onWire = new WeakSet<object>();
  let open = 0;
  let wire = 0;
  const done = (m: unknown): void => {
    const request = (m as { request: object }).request;
    open--;
    if (onWire.delete(request)) wire--;
  };
  subscribe('undici:request:create', () => {
    open++;
  });
  subscribe('undici:client:sendHeaders', (m) => {
    onWire.add((m as { request: object }).request);
    wire++;
  });
  subscribe('undici:request:trailers', done);
  subscribe('undici:request:error', done);

  let lines: string[] = [];
  let elu = performance.eventLoopUtilization();
  const sampler = setInterval(() => {
    const next = performance.eventLoopUtilization();
    const used = performance.eventLoopUtilization(next, elu).utilization;
    elu = next;
    const at = performance.timeOrigin + performance.now();
    lines.push(`${at.toFixed(1)},${open},${wire},${used.toFixed(3)}`);
  }, 2);
  sampler.unref();
  const write = (): void => {
    if (lines.length === 0) return;
    appendFileSync(file, `${lines.join('\n')}\n`);
    lines = [];
  };
  setInterval(write, 500).unref();
  process.on('exit', write);
}
