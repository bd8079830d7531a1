// Where a measured process's CPU went, by thread and by layer, from a system-wide `perf` sample of a
// bench run: the kernel (the sends, the reads, epoll), the JIT-compiled JavaScript, V8's builtins,
// garbage collector and runtime, node's C++ and libuv, libc (malloc). The V8 profiler
// (lib/profile-summary.ts) sees the main thread alone and charges a native call's whole time, the
// kernel's included, to the JavaScript name that made it; this splits it, and counts the helper
// threads (GC, compiler) too. The windows and their operation counts are the bench's own
// (BENCH_WINDOWS, lib/measure.ts noteWindow), so the figures are per delivery like the bench's: each
// arm's fan-out bursts by size, and its publish rounds as "<arm> publishes" by concurrency.
// Usage:
//   BENCH_WINDOWS=/tmp/w.jsonl perf record -a -k CLOCK_REALTIME -e cpu-clock -F 2000 -g \
//     -o /tmp/perf.data -- pnpm bench hub.ts
//   perf script -i /tmp/perf.data -F pid,tid,time,period,ip,sym,dso > /tmp/perf.txt
//   node --import tsx test/bench/lib/perf-summary.ts /tmp/perf.txt /tmp/w.jsonl [--skip=1]
// Warm-up windows (measure.ts warmUp) are always left out; --skip=<k> also leaves out each arm's
// first k measured windows at each size.
// --by-source[=<top>] also charges each main-thread sample to the innermost JavaScript function on
// its stack (with what it called natively: a `writev` counts for the stream code that made it) and
// sums those by source (our packages by directory, undici, node's modules), with the <top> functions
// (default 25). It needs the JIT's symbols: run the bench with NODE_OPTIONS=--perf-basic-prof, so
// every node process writes /tmp/perf-<pid>.map for `perf script` (and an isolate-*-v8.log in its
// working directory, to delete). Two ways a sample gets a wrong name: a map is not updated when V8
// reuses an address, and perf's frame-pointer unwinding goes astray through native code built
// without them (SQLite's statements, so the publish path's commits land on whatever name held that
// address). Read single small entries, and any path heavy in SQLite, with care.
import { createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { BenchWindow } from './measure.js';

const args = process.argv.slice(2);
const [perfText, windowsFile] = args.filter((a) => !a.startsWith('--'));
const skip = Number(args.find((a) => a.startsWith('--skip='))?.slice(7) ?? 0);
const bySourceArg = args.find((a) => a === '--by-source' || a.startsWith('--by-source='));
const topFunctions = bySourceArg ? Number(bySourceArg.split('=')[1] ?? 25) : 0;
if (!perfText || !windowsFile) {
  console.error(
    'usage: perf-summary.ts <perf script output> <windows.jsonl> [--skip=<k>] [--by-source[=<top>]]',
  );
  process.exit(2);
}

/** What a sample's innermost frame (and for the kernel, its stack) says it was doing. */
function layerOf(frames: readonly string[]): string {
  const leaf = frames[0] ?? '';
  if (leaf.includes('[kernel.kallsyms]')) {
    const stack = frames.join(' ');
    if (stack.includes('do_writev') || stack.includes('ksys_write')) return 'kernel: write';
    if (stack.includes('ksys_read')) return 'kernel: read';
    if (stack.includes('epoll')) return 'kernel: epoll';
    return 'kernel: other';
  }
  if (leaf.includes('[JIT]') || leaf.includes('perf-')) return 'JIT code';
  const symbol = leaf.replace(/^\s*[0-9a-f]+\s+/, '').replace(/\s+\([^()]*\)$/, '');
  if (leaf.includes('/node)') || leaf.includes('/node ')) {
    if (
      /Scaveng|Marking|Marker|Sweep|Evacuat|Heap::|Compactor|RememberedSet|BackingStore/.test(
        symbol,
      )
    )
      return 'V8 garbage collector';
    if (symbol.startsWith('Builtins_')) return 'V8 builtins (ICs, promises, interpreter)';
    if (symbol.includes('compiler::') || symbol.includes('maglev::')) return 'V8 compiler';
    if (symbol.startsWith('node::')) return "node's C++";
    if (symbol.startsWith('uv_') || symbol.startsWith('uv__')) return 'libuv';
    return 'V8 runtime and API';
  }
  if (leaf.includes('libc.so')) return 'libc (malloc, memcpy)';
  if (leaf.includes('better_sqlite3')) return 'SQLite';
  return 'other';
}

/** A JIT frame as --perf-basic-prof names it: `JS:*name url:line:column`, `*` optimised, `^` baseline. */
const JS_FRAME = /JS:[*^~+]?(\S*) (\S+?):\d+:\d+/;

/** Where a function's code lives, for --by-source: our packages by directory, else the library. */
function sourceOf(url: string): string {
  const ours = /\/(hub|subscriber|shared|service-kit)\/(?:src|dist)\/([^/]+)(\/)?/.exec(url);
  if (ours && !url.includes('node_modules'))
    return `${ours[1]}: ${ours[3] ? ours[2] : 'top level'}`;
  if (url.includes('/test/bench/')) return 'bench arms (lib/)';
  const library = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (library) return library[1]!;
  if (url.startsWith('node:'))
    return `node:${url.replace(/^node:(internal\/)?/, '').split('/')[0]}`;
  return 'other JavaScript';
}

/** The innermost JavaScript frame of a sample, as [source, function], or none. */
function innermostFunction(frames: readonly string[]): [string, string] {
  for (const frame of frames) {
    const m = JS_FRAME.exec(frame);
    if (m) return [sourceOf(m[2]!), `${m[1] || '(anonymous)'} ${m[2]!.split('/').pop()}`];
  }
  return ['no JavaScript on the stack (event loop, GC, malloc)', ''];
}

interface Tally {
  readonly windows: BenchWindow[];
  ops: number;
  span: number;
  /** ns by "thread / layer" */
  readonly ns: Map<string, number>;
  writePathNs: { kernel: number; user: number };
  /** --by-source: main-thread ns by the innermost JavaScript function's source, and by function. */
  readonly bySource: Map<string, number>;
  readonly byFunction: Map<string, number>;
}

const add = (m: Map<string, number>, k: string, v: number): void => {
  m.set(k, (m.get(k) ?? 0) + v);
};

const byPid = new Map<number, { window: BenchWindow; tally: Tally }[]>();
const tallies = new Map<string, Tally>();
const seen = new Map<string, number>();
for (const line of readFileSync(windowsFile, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const w = JSON.parse(line) as BenchWindow;
  if (w.pid === undefined || w.ops === undefined || w.warmUp) continue;
  const key = `${w.arm} at ${w.n}`;
  const count = (seen.get(key) ?? 0) + 1;
  seen.set(key, count);
  if (count <= skip) continue;
  let tally = tallies.get(key);
  if (!tally) {
    tally = {
      windows: [],
      ops: 0,
      span: 0,
      ns: new Map(),
      writePathNs: { kernel: 0, user: 0 },
      bySource: new Map(),
      byFunction: new Map(),
    };
    tallies.set(key, tally);
  }
  tally.windows.push(w);
  tally.ops += w.ops;
  tally.span += w.end - w.start;
  byPid.set(w.pid, [...(byPid.get(w.pid) ?? []), { window: w, tally }]);
}

function record(pid: number, tid: number, atMs: number, periodNs: number, frames: string[]): void {
  const tally = byPid.get(pid)?.find((e) => atMs >= e.window.start && atMs <= e.window.end)?.tally;
  if (!tally) return;
  const thread = tid === pid ? 'main' : 'other threads';
  add(tally.ns, `${thread} / ${layerOf(frames)}`, periodNs);
  if (topFunctions > 0 && thread === 'main') {
    const [source, fn] = innermostFunction(frames);
    add(tally.bySource, source, periodNs);
    if (fn) add(tally.byFunction, `${source} | ${fn}`, periodNs);
  }
  // node's socket write path (StreamBase::Writev and what it calls): what the V8 profiler names `writev`.
  if (thread === 'main' && frames.some((f) => f.includes('StreamBase::Writev')))
    tally.writePathNs[frames[0]?.includes('[kernel.kallsyms]') ? 'kernel' : 'user'] += periodNs;
}

const HEADER = /^\s*(\d+)\/(\d+)\s+(\d+\.\d+):\s+(\d+)/;
let current:
  { pid: number; tid: number; atMs: number; period: number; frames: string[] } | undefined;
for await (const line of createInterface({ input: createReadStream(perfText) })) {
  const header = HEADER.exec(line);
  if (header) {
    if (current) record(current.pid, current.tid, current.atMs, current.period, current.frames);
    current = {
      pid: Number(header[1]),
      tid: Number(header[2]),
      atMs: Number(header[3]) * 1000,
      period: Number(header[4]),
      frames: [],
    };
  } else if (line.startsWith('\t') && current) {
    current.frames.push(line.trim());
  }
}
if (current) record(current.pid, current.tid, current.atMs, current.period, current.frames);

const us = (ns: number, ops: number): string => (ns / 1000 / ops).toFixed(2).padStart(6);
for (const [key, t] of tallies) {
  let total = 0;
  let main = 0;
  for (const [k, v] of t.ns) {
    total += v;
    if (k.startsWith('main')) main += v;
  }
  console.log(
    `\n${key}: ${t.windows.length} windows, ${t.ops} operations; CPU ${us(total, t.ops)} µs per operation, ` +
      `the main thread busy ${((main / 1e6 / t.span) * 100).toFixed(0)} % of the windows' wall time`,
  );
  for (const [k, v] of [...t.ns].sort((a, b) => b[1] - a[1]))
    if (v / 1000 / t.ops >= 0.05) console.log(`  ${us(v, t.ops)}  ${k}`);
  const w = t.writePathNs;
  console.log(
    `  node's socket writes (StreamBase::Writev and below, main thread): ${us(w.kernel + w.user, t.ops)} µs, of which the kernel ${us(w.kernel, t.ops).trim()}`,
  );
  if (topFunctions === 0) continue;
  console.log("  main thread, by the innermost JavaScript function's source:");
  for (const [k, v] of [...t.bySource].sort((a, b) => b[1] - a[1]))
    if (v / 1000 / t.ops >= 0.05) console.log(`  ${us(v, t.ops)}  ${k}`);
  console.log(`  the ${topFunctions} functions that cost most (with what they called natively):`);
  for (const [k, v] of [...t.byFunction].sort((a, b) => b[1] - a[1]).slice(0, topFunctions))
    console.log(`  ${us(v, t.ops)}  ${k}`);
}
