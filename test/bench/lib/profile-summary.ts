// Summarizes a V8 .cpuprofile (node --cpu-prof): self time per function and per stage (a stage is a
// group of source files or a runtime bucket), so the notes can say where the time goes.
// Usage: node --import tsx test/bench/lib/profile-summary.ts <file.cpuprofile> [top=30]
//        [--from=<s>] [--to=<s>] [--ops=<n>] [--inclusive]
// --from/--to keep only the samples in that window (seconds from the profile's start; set-up such as
// subscribing 1,000 callbacks is left out), --ops adds µs of CPU per operation for each stage, and
// --inclusive adds the top functions by inclusive time (callees counted in), as shares of the busy
// samples: where a stage's time is spent below its entry points (a publish's check, commit, answer).
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const STAGES: [string, RegExp][] = [
  ['hub delivery (scheduler/sender/cache)', /hub\/(src|dist)\/delivery\//],
  ['hub publishing intake', /hub\/(src|dist)\/publishing\//],
  ['hub store (repository)', /hub\/(src|dist)\/store\//],
  ['hub other', /hub\/(src|dist)\//],
  ['subscriber intake', /subscriber\/(src|dist)\/intake\//],
  ['subscriber store', /subscriber\/(src|dist)\/store\//],
  ['subscriber mirror', /subscriber\/(src|dist)\/mirror\//],
  ['subscriber baseline', /subscriber\/(src|dist)\/baseline\//],
  ['subscriber other', /subscriber\/(src|dist)\//],
  ['shared (parse, signature, net)', /shared\/(src|dist)\//],
  ['drizzle-orm', /node_modules\/drizzle-orm\//],
  ['better-sqlite3', /node_modules\/better-sqlite3\//],
  ['pg (PostgreSQL driver)', /node_modules\/(pg|pg-[a-z-]+|pgpass|postgres-[a-z-]+)\//],
  ['undici', /undici/],
  ['hono + node-server', /hono|node-server/],
  ['pino', /pino|sonic-boom/],
  ['prom-client', /prom-client/],
  ['fast-xml-parser/saxes', /fast-xml-parser|saxes/],
  ['node:http', /node:_http|node:http/],
  ['node:net/stream', /node:net|node:internal\/streams|node:stream|node:internal\/stream_base/],
  ['node internals', /^node:/],
];

const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flag = (name: string): number | undefined => {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a === undefined ? undefined : Number(a.slice(name.length + 3));
};
const file = positional[0]!;
const top = Number(positional[1] ?? 30);
const fromUs = (flag('from') ?? 0) * 1e6;
const toUs = (flag('to') ?? Infinity) * 1e6;
const ops = flag('ops');
const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
let clock = 0;
for (let i = 0; i < p.samples.length; i++) {
  clock += p.timeDeltas[i] ?? 0;
  if (clock < fromUs || clock > toUs) continue;
  self.set(p.samples[i]!, (self.get(p.samples[i]!) ?? 0) + (p.timeDeltas[i] ?? 0));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
/** The stage of a sample: the first frame from the leaf up whose file belongs to a named stage
 * (so a writev under undici counts for undici, one under node:http's end for the HTTP server). */
function stageOf(id: number): string {
  const leaf = byId.get(id)!.callFrame;
  if (leaf.url === '' && leaf.functionName.startsWith('(')) return leaf.functionName;
  let nodeStage: string | undefined;
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    // A pnpm store path names other packages in its folder name (drizzle-orm's holds
    // "@types+better-sqlite3"): match on the package's own path only.
    const url = byId
      .get(cur)!
      .callFrame.url.replace(/^.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, 'node_modules/');
    if (url.startsWith('node:')) {
      nodeStage ??= STAGES.find(([, re]) => re.test(url))?.[0];
      continue;
    }
    const hit = STAGES.find(([, re]) => re.test(url));
    if (hit) return hit[0];
  }
  return nodeStage ?? (leaf.url === '' ? 'native/builtin' : 'other JS');
}
/** A function's name, its file shortened to the package, and its line. */
function keyOf(id: number): string {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const short = url
    .replace(/^.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, '')
    .replace(/^file:\/\/.*?\/(hub|subscriber|shared|service-kit|test)\//, '$1/');
  return `${functionName || '(anonymous)'} ${short}:${lineNumber + 1}`;
}
const fn = new Map<string, number>();
const stage = new Map<string, number>();
for (const [id, us] of self) {
  const key = keyOf(id);
  fn.set(key, (fn.get(key) ?? 0) + us);
  const name = stageOf(id);
  stage.set(name, (stage.get(name) ?? 0) + us);
}
const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
console.log(`${file}: ${(total / 1e6).toFixed(2)} s sampled`);
console.log(
  '\nby stage (self time; native and node-internal frames charged to the nearest named caller):',
);
for (const [k, v] of [...stage].sort((a, b) => b[1] - a[1]))
  console.log(
    `  ${pct(v)}  ${(v / 1000).toFixed(0).padStart(7)} ms${ops ? `  ${(v / ops).toFixed(1).padStart(7)} µs/op` : ''}  ${k}`,
  );
if (ops) {
  const busy = [...stage].filter(([k]) => k !== '(idle)').reduce((a, [, v]) => a + v, 0);
  console.log(`  busy (all but idle): ${(busy / ops).toFixed(1)} µs/op over ${ops} ops`);
}
console.log(`\ntop ${top} functions (self time):`);
for (const [k, v] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`  ${pct(v)}  ${k}`);
if (process.argv.includes('--inclusive')) {
  // Each sample counts once for every function on its stack (once, however deep it recurses).
  const inclusive = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of self) {
    if (byId.get(id)!.callFrame.functionName === '(idle)') continue;
    busy += us;
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const key = keyOf(cur);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
  }
  console.log(`\ntop ${top} functions (inclusive, share of the busy samples):`);
  for (const [k, v] of [...inclusive]
    .filter(([k]) => !k.startsWith('(root)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top))
    console.log(`  ${((100 * v) / busy).toFixed(1).padStart(5)}%  ${k}`);
}
