// Parse benchmark: shared's streamDocument (saxes, incremental) against the raw baseline, a plain
// whole-document fast-xml-parser parse (no value parsing, entities on), on the same generated
// 50,000-entry Change List (~14 MB) in the same run. Each measurement runs in its own child process
// (this file, started with `--parse-child`), so heap figures are not polluted by the other parser or
// by the bench runner. Target: streaming >= 2x the entries/s of the baseline, with a heap that stays
// flat (peak heapUsed does not grow with the document).
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchContext, BenchRow, BenchScenario } from '../types.js';

const THIS_FILE = fileURLToPath(import.meta.url);
const FULL_ENTRIES = 50_000;
const RUNS = 5;

type Mode = 'stream' | 'baseline' | 'stream-live';

interface ChildResult {
  readonly mode: Mode;
  readonly entries: number;
  readonly ms: number;
  /** Largest heapUsed seen during the run (bytes). */
  readonly peakHeapUsed: number;
  /** heapUsed after a forced GC before the run started (bytes). */
  readonly heapBefore: number;
  /** Peak resident set size of the child process (VmHWM, bytes). */
  readonly peakRss: number;
}

// ---------------------------------------------------------------- the document

function entryXml(i: number): string {
  const us = String((i * 7919) % 1_000_000).padStart(6, '0');
  const sec = String(Math.floor(i / 1000) % 60).padStart(2, '0');
  const min = String(Math.floor(i / 60_000) % 60).padStart(2, '0');
  const time = `2026-11-22T10:${min}:${sec}.${us}Z`;
  const change = i % 10 === 0 ? 'created' : i % 10 === 9 ? 'deleted' : 'updated';
  return (
    `  <url>\n    <loc>http://example.com/dataset1/resources/${i}?format=pdf&amp;v=${i % 7}</loc>\n` +
    `    <lastmod>${time}</lastmod>\n` +
    `    <rs:md change="${change}" datetime="${time}"\n` +
    `           hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6" length="${8876 + i}" type="application/pdf"/>\n  </url>\n`
  );
}

// Raw on purpose: a list too large to build in memory is streamed to the file in pieces.
async function writeChangeList(file: string, entries: number): Promise<number> {
  const out = createWriteStream(file);
  out.write(
    '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"\n' +
      '        xmlns:rs="http://www.openarchives.org/rs/terms/">\n' +
      '  <rs:ln rel="up" href="http://example.com/dataset1/capabilitylist.xml"/>\n' +
      '  <rs:md capability="changelist" from="2026-11-22T10:00:00Z"/>\n',
  );
  let batch = '';
  for (let i = 0; i < entries; i++) {
    batch += entryXml(i);
    if (batch.length > 1 << 16) {
      if (!out.write(batch)) await once(out, 'drain');
      batch = '';
    }
  }
  out.end(`${batch}</urlset>\n`);
  await once(out, 'finish');
  return (await stat(file)).size;
}

// ---------------------------------------------------------------- child side

function peakRss(): number {
  // Linux only; elsewhere fall back to the current RSS.
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(status);
    if (m) return Number(m[1]) * 1024;
  } catch {
    /* not Linux */
  }
  return process.memoryUsage().rss;
}

async function runChild(mode: Mode, file: string): Promise<ChildResult> {
  // Load each parser before the clock starts: module loading (tsx compiling shared's sources,
  // undici) is start-up cost, not parsing.
  const { streamDocument } = await import('@rsnotify/shared');
  const { XMLParser } = await import('fast-xml-parser');
  const ARR = new Set([
    'urlset.url',
    'sitemapindex.sitemap',
    'urlset.rs:ln',
    'urlset.url.rs:ln',
    'sitemapindex.rs:ln',
    'sitemapindex.sitemap.rs:ln',
  ]);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    removeNSPrefix: false,
    processEntities: true,
    htmlEntities: true,
    ignoreDeclaration: true,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    isArray: (_name: string, jpath: unknown) => ARR.has(jpath as string),
  });

  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  let peak = heapBefore;
  const sample = (): void => {
    const h = process.memoryUsage().heapUsed;
    if (h > peak) peak = h;
  };
  let entries = 0;
  const t0 = process.hrtime.bigint();
  if (mode === 'stream') {
    for await (const ev of streamDocument(createReadStream(file, { highWaterMark: 64 * 1024 }))) {
      if (ev.type === 'entry' && ++entries % 500 === 0) sample();
    }
    sample();
  } else if (mode === 'stream-live') {
    // Not timed: what the reader keeps alive, i.e. heapUsed right after a forced GC every 5,000 entries.
    for await (const ev of streamDocument(createReadStream(file, { highWaterMark: 64 * 1024 }))) {
      if (ev.type === 'entry' && ++entries % 5_000 === 0) {
        gc?.();
        sample();
      }
    }
  } else {
    // Baseline: the whole file as one string, one fast-xml-parser call, then
    // the mapping a consumer needs (loc, change, datetime).
    const xml = await readFile(file, 'utf8');
    if (/<!DOCTYPE/i.test(xml.slice(0, 4096))) throw new Error('DOCTYPE not allowed');
    sample();
    const doc = parser.parse(xml) as {
      urlset: { url: { loc: string; 'rs:md'?: Record<string, string> }[] };
    };
    // A synchronous parse cannot be sampled from inside; right after it, with the tree and the
    // input still referenced and no GC forced, the heap is at (or near) its peak.
    sample();
    const records = doc.urlset.url.map((u) => ({
      loc: u.loc,
      change: u['rs:md']?.['@_change'],
      datetime: u['rs:md']?.['@_datetime'],
    }));
    entries = records.length;
    sample();
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { mode, entries, ms, peakHeapUsed: peak, heapBefore, peakRss: peakRss() };
}

// ---------------------------------------------------------------- parent side

function measure(mode: Mode, file: string): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--expose-gc',
        '--conditions=@rsnotify/source',
        '--import',
        'tsx',
        THIS_FILE,
        '--parse-child',
        mode,
        file,
      ],
      {
        cwd: process.cwd(),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0)
        return reject(
          new Error(
            `parse child (${mode}) exited ${code}: ${err.trim().split('\n').slice(-3).join(' | ')}`,
          ),
        );
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()!) as ChildResult);
      } catch (e) {
        reject(e as Error);
      }
    });
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const MiB = 1024 * 1024;

async function run(ctx: BenchContext): Promise<BenchRow[]> {
  const entries = Math.max(1000, Math.round(FULL_ENTRIES * ctx.scale));
  const file = join(ctx.tmpDir, 'changelist.xml');
  const small = join(ctx.tmpDir, 'changelist-small.xml');
  const bytes = await writeChangeList(file, entries);
  const smallEntries = Math.round(entries / 5);
  await writeChangeList(small, smallEntries);
  ctx.log(`generated ${entries} entries, ${(bytes / MiB).toFixed(1)} MiB`);

  const stream: ChildResult[] = [];
  const baseline: ChildResult[] = [];
  for (let i = 0; i < RUNS; i++) {
    // Alternate, so a noisy neighbour on the shared cores hits both alike.
    stream.push(await measure('stream', file));
    baseline.push(await measure('baseline', file));
    ctx.log(
      `run ${i + 1}: stream ${stream[i]!.ms.toFixed(0)} ms, baseline ${baseline[i]!.ms.toFixed(0)} ms`,
    );
  }
  const liveSmall = await measure('stream-live', small);
  const liveFull = await measure('stream-live', file);
  for (const r of [...stream, ...baseline]) {
    if (r.entries !== entries)
      throw new Error(`${r.mode} saw ${r.entries} entries, expected ${entries}`);
  }
  const rate = (rs: ChildResult[]): number => entries / (median(rs.map((r) => r.ms)) / 1000);
  const streamRate = rate(stream);
  const baseRate = rate(baseline);
  const streamHeap = Math.max(...stream.map((r) => r.peakHeapUsed)) / MiB;
  const baseHeap = Math.max(...baseline.map((r) => r.peakHeapUsed)) / MiB;
  const streamRss = Math.max(...stream.map((r) => r.peakRss)) / MiB;
  const baseRss = Math.max(...baseline.map((r) => r.peakRss)) / MiB;
  const liveSmallMiB = liveSmall.peakHeapUsed / MiB;
  const liveFullMiB = liveFull.peakHeapUsed / MiB;
  const doc = `${entries.toLocaleString('en-US')}-entry Change List, ${(bytes / MiB).toFixed(1)} MiB`;
  return [
    {
      scenario: 'parse',
      figure: 'entries/s, streamDocument from a file stream',
      value: streamRate,
      unit: 'entries/s',
      baseline: { label: 'fast-xml-parser whole document', value: baseRate, unit: 'entries/s' },
      ratio: streamRate / baseRate,
      target: 'ratio >= 2',
      note: `${doc}; median of ${RUNS} runs each, one child process per run; times include reading the file`,
    },
    {
      scenario: 'parse',
      figure: 'peak heapUsed, streamDocument',
      value: streamHeap,
      unit: 'MiB',
      baseline: { label: 'fast-xml-parser whole document', value: baseHeap, unit: 'MiB' },
      ratio: streamHeap / baseHeap,
      target: 'flat (does not grow with the document)',
      note: `sampled every 500 entries (stream) / around the parse call (baseline); heap after GC at start: ${(stream[0]!.heapBefore / MiB).toFixed(1)} MiB`,
    },
    {
      scenario: 'parse',
      figure: `live heap after GC, streamDocument at ${entries.toLocaleString('en-US')} entries`,
      value: liveFullMiB,
      unit: 'MiB',
      baseline: {
        label: `same at ${smallEntries.toLocaleString('en-US')} entries`,
        value: liveSmallMiB,
        unit: 'MiB',
      },
      ratio: liveFullMiB / liveSmallMiB,
      target: 'ratio ~1 (flat)',
      note: 'max heapUsed right after a forced GC every 5,000 entries (separate, untimed run): what the reader retains',
    },
    {
      scenario: 'parse',
      figure: 'peak RSS (VmHWM), streamDocument',
      value: streamRss,
      unit: 'MiB',
      baseline: { label: 'fast-xml-parser whole document', value: baseRss, unit: 'MiB' },
      ratio: streamRss / baseRss,
      note: 'whole child process, node + tsx included',
    },
  ];
}

const scenario: BenchScenario = { name: 'parse', run };
export default scenario;

// Child mode: `node ... parse.ts --parse-child <stream|baseline> <file>` prints one JSON line.
if (process.argv[1] === THIS_FILE && process.argv[2] === '--parse-child') {
  const mode = process.argv[3] as Mode;
  const result = await runChild(mode, process.argv[4]!);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
