// Measurement helpers every scenario shares: per-process CPU time and peak RSS read from /proc (so
// a child process is measured from outside, without code in it), interleaved rounds (A B A B ...)
// and a median with its min-max spread. On a shared machine only ratios of runs interleaved in one
// process tree mean anything; one figure alone is noise.
import { execFile } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** User + system CPU time of a process (ms) from /proc/<pid>/stat; `process.cpuUsage` for ourselves. */
export function cpuMs(pid: number = process.pid): number {
  if (pid === process.pid) {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** Resets the kernel's peak-RSS mark (VmHWM) of a process; false where the kernel refuses. */
export function resetPeakRss(pid: number = process.pid): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Peak resident set size (MiB) since the last reset (or since the process started). */
export function peakRssMiB(pid: number = process.pid): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * Bytes a process (all its threads) has sent towards storage so far, from /proc/<pid>/io
 * (`write_bytes`: what it dirtied in the page cache, so a WAL frame rewritten in place counts each
 * time); NaN where the kernel does not account I/O.
 */
export function writtenBytes(pid: number = process.pid): number {
  try {
    const m = /^write_bytes: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'latin1'));
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

/** What one measured run of one process costs: CPU time, peak RSS and bytes written to storage. */
export interface ProcessCost {
  readonly cpuMs: number;
  readonly peakRssMiB: number;
  readonly writtenBytes: number;
}

/** Runs `fn` while metering process `pid`; returns fn's value with the process's CPU and peak RSS. */
export async function metered<T>(
  pid: number,
  fn: () => Promise<T>,
  options: { readonly settleMs?: number } = {},
): Promise<{ value: T } & ProcessCost> {
  resetPeakRss(pid);
  const before = cpuMs(pid);
  const writtenBefore = writtenBytes(pid);
  const value = await fn();
  // Work the process defers past fn (a hub's cursor batch) is its cost too, not the next arm's.
  if (options.settleMs) await new Promise((r) => setTimeout(r, options.settleMs));
  return {
    value,
    cpuMs: cpuMs(pid) - before,
    peakRssMiB: peakRssMiB(pid),
    writtenBytes: writtenBytes(pid) - writtenBefore,
  };
}

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly n: number;
}

export function spread(values: readonly number[]): Spread {
  const s = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (s.length === 0) return { median: NaN, min: NaN, max: NaN, n: 0 };
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, min: s[0]!, max: s[s.length - 1]!, n: s.length };
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

function short(n: number): string {
  if (!Number.isFinite(n)) return '?';
  if (Math.abs(n) >= 1000) return Math.round(n).toLocaleString('en-US');
  if (Math.abs(n) >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

/** '28,100 (27,400-29,000, n=3)': the median and the range it came from. */
export function describeSpread(s: Spread): string {
  return `${short(s.median)} (${short(s.min)}-${short(s.max)}, n=${s.n})`;
}

/** '27,400-29,000, n=3': the range alone, for the table's min-max column. */
export function describeRange(s: Spread): string {
  return `${short(s.min)}-${short(s.max)}, n=${s.n}`;
}

/**
 * sync(1): the kernel writes every dirty page back now, outside any arm's window. An arm that
 * writes without fsync (the intake floor split, SQLite at synchronous=NORMAL) leaves dirty pages,
 * and the next arm's fsyncs can end up writing them (an ext4 journal commit carries them). The
 * subscriber intake arm, which followed the unsynced floor split in 4 of 5 rounds, read 0.84, 0.88
 * and 0.95x of the very same build run as the A/B arm; with this flush, 0.99 and 0.99x.
 */
async function flushDirtyPages(): Promise<void> {
  await execFileAsync('sync');
}

/**
 * Runs the arms in turn, `rounds` times, each round starting one arm later (A B, B A, ...), so drift in the machine's load and the first arm's handicap reach every
 * arm alike, and each arm after the dirty pages are flushed (flushDirtyPages). Returns each arm's
 * results in round order.
 */
export async function interleave<K extends string, T>(
  rounds: number,
  arms: Record<K, (round: number) => Promise<T>>,
): Promise<Record<K, T[]>> {
  const out = {} as Record<K, T[]>;
  const names = Object.keys(arms) as K[];
  for (const k of names) out[k] = [];
  // The arm that runs first in a round reads differently (caches, the receivers' JIT, the other
  // arm's leftover garbage), so each round starts one arm later: A B C, B C A, C A B.
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < names.length; i++) {
      const k = names[(r + i) % names.length]!;
      await flushDirtyPages();
      out[k].push(await arms[k](r));
    }
  }
  return out;
}

let warmingUp = false;

/**
 * Runs every arm `rounds` times before the measured rounds, the results thrown away. A process's
 * JIT takes thousands of operations to tier up, more in a process with more code on its path. With
 * `--trace-opt` (lib/jit-summary.ts), V8 spent 0.70, 0.23, 0.06, 0.02 and 0.01 s compiling the
 * hub's code in its first five 2,000-delivery rounds to 1 subscriber (the per-delivery functions
 * among them in the third), 0.46 and 0.08 s in its first two 20,000-delivery rounds to 10, under
 * 0.01 s from the third on. An arm measured while it still compiles is measured at a cost it does
 * not pay running. The windows noted meanwhile carry `warmUp: true`.
 */
export async function warmUp<K extends string>(
  rounds: number,
  arms: Record<K, (round: number) => Promise<unknown>>,
): Promise<void> {
  warmingUp = true;
  try {
    for (let r = 0; r < rounds; r++) for (const k of Object.keys(arms) as K[]) await arms[k](r);
  } finally {
    warmingUp = false;
  }
}

/** Runs `total` tasks with at most `concurrency` in flight. */
export async function pool(
  total: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, total) }, async () => {
      while (next < total) await task(next++);
    }),
  );
}

/** BENCH_CPU_PROF=<dir> profiles the measured processes (node --cpu-prof into <dir>/<name>/); see
 * lib/profile-summary.ts. */
export function profileArgs(name: string): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  const extra =
    name === 'hub' ? (process.env.BENCH_HUB_NODE_FLAGS?.split(' ').filter(Boolean) ?? []) : [];
  return [...extra, ...(dir ? ['--cpu-prof', '--cpu-prof-dir', `${dir}/${name}`] : [])];
}

/**
 * BENCH_INFLIGHT=<dir> preloads lib/inflight-probe.ts into a measured process, after tsx: a process
 * that runs its build (`dist/`, as the hub does) needs tsx loaded for the probe alone.
 */
export function probeArgs(options: { runsTsx: boolean }): string[] {
  if (!process.env.BENCH_INFLIGHT) return [];
  const probe = fileURLToPath(new URL('./inflight-probe.ts', import.meta.url));
  return [...(options.runsTsx ? [] : ['--import', 'tsx']), '--import', probe];
}

/**
 * One measured window of an arm (ms since the epoch), as lib/inflight-summary.ts and
 * lib/perf-summary.ts read it.
 */
export interface BenchWindow {
  readonly arm: string;
  readonly n: number;
  readonly concurrency?: number;
  readonly start: number;
  readonly end: number;
  /** The hub arm: when the last publish was answered. */
  readonly published?: number;
  /** The measured process, and the operations (deliveries) the window counted. */
  readonly pid: number;
  readonly ops: number;
  /** Run by `warmUp`: not measured, and the summaries leave it out. */
  readonly warmUp?: boolean;
}

/**
 * Notes a measured window (which arm and process, when, how many operations): with
 * BENCH_INFLIGHT=<dir> into <dir>/windows.jsonl for lib/inflight-summary.ts, with
 * BENCH_WINDOWS=<file> into that file for lib/perf-summary.ts.
 */
export function noteWindow(w: BenchWindow): void {
  const line = `${JSON.stringify(warmingUp ? { ...w, warmUp: true } : w)}\n`;
  const dir = process.env.BENCH_INFLIGHT;
  if (dir) appendFileSync(`${dir}/windows.jsonl`, line);
  if (process.env.BENCH_WINDOWS) appendFileSync(process.env.BENCH_WINDOWS, line);
}
