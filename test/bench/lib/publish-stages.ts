// Stage timestamps of one publish-to-file sample, taken from outside the code under test: Node's
// own diagnostics channels (node:http server request start / response finish, undici request
// create / headers written / response headers / trailers) see every hop of the chain that runs in the bench process (Source
// publish POST, hub, delivery POST, subscriber callback, the subscriber's GET), and an inotify watch
// sees the mirror file renamed into place. Nothing is added to hub or subscriber for it; a channel
// with no subscriber costs nothing, and these are subscribed only while the latency bench runs.
import diagnosticsChannel from 'node:diagnostics_channel';
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';

/** The hops, in the order a change travels them. */
export const STAGES = [
  'publish POST sent (Source)',
  'publish POST written (Source)',
  'publish received (hub)',
  'publish answered 2xx (hub committed)',
  'delivery POST sent (hub)',
  'delivery POST written (hub)',
  'delivery received (subscriber)',
  'delivery answered 202 (inbox committed)',
  'GET sent (subscriber)',
  'GET written (subscriber)',
  'GET received (Source)',
  'GET response headers (subscriber)',
  'GET body ended (subscriber)',
  'file in place (renamed, seen by inotify)',
  'file bytes checked (bench)',
] as const;
export type Stage = (typeof STAGES)[number];

interface UndiciRequest {
  readonly origin?: string;
  readonly method?: string;
  readonly path?: string;
}

export class StageTracer {
  private t0 = 0;
  private marks = new Map<Stage, number>();
  private resource?: URL;
  private readonly samples: Map<Stage, number>[] = [];
  private readonly subs: [string, (m: unknown) => void][] = [];

  constructor(private readonly hubUrl: string) {
    const on = (name: string, fn: (m: unknown) => void): void => {
      diagnosticsChannel.subscribe(name, fn);
      this.subs.push([name, fn]);
    };
    const SENT = {
      publish: 'publish POST sent (Source)',
      delivery: 'delivery POST sent (hub)',
      get: 'GET sent (subscriber)',
    } as const;
    // Sent is when undici makes the request; written, when its headers reach the socket. Between
    // them undici lets an idle keep-alive socket show it was closed (a turn of the event loop).
    const WRITTEN = {
      publish: 'publish POST written (Source)',
      delivery: 'delivery POST written (hub)',
      get: 'GET written (subscriber)',
    } as const;
    on('undici:request:create', (m) => {
      const kind = this.requestKind(m);
      if (kind) this.mark(SENT[kind]);
    });
    on('undici:client:sendHeaders', (m) => {
      const kind = this.requestKind(m);
      if (kind) this.mark(WRITTEN[kind]);
    });
    on('undici:request:headers', (m) => {
      const r = (m as { request: UndiciRequest }).request;
      if (r.method === 'GET' && this.isResource(`${r.origin ?? ''}${r.path ?? ''}`))
        this.mark('GET response headers (subscriber)');
    });
    on('undici:request:trailers', (m) => {
      const r = (m as { request: UndiciRequest }).request;
      if (r.method === 'GET' && this.isResource(`${r.origin ?? ''}${r.path ?? ''}`))
        this.mark('GET body ended (subscriber)');
    });
    on('http.server.request.start', (m) => {
      const req = (m as { request: IncomingMessage }).request;
      const s = this.serverStage(req, 'start');
      if (s) this.mark(s);
    });
    on('http.server.response.finish', (m) => {
      const req = (m as { request: IncomingMessage }).request;
      const s = this.serverStage(req, 'finish');
      if (s) this.mark(s);
    });
  }

  private serverStage(req: IncomingMessage, at: 'start' | 'finish'): Stage | undefined {
    const path = req.url ?? '';
    if (req.method === 'POST' && path === new URL(this.hubUrl).pathname)
      return at === 'start' ? 'publish received (hub)' : 'publish answered 2xx (hub committed)';
    if (req.method === 'POST' && path.includes('/callback/'))
      return at === 'start'
        ? 'delivery received (subscriber)'
        : 'delivery answered 202 (inbox committed)';
    if (req.method === 'GET' && at === 'start' && this.resource && path === this.resource.pathname)
      return 'GET received (Source)';
    return undefined;
  }

  /** Which request of the chain an undici channel message is about, if any. */
  private requestKind(m: unknown): 'publish' | 'delivery' | 'get' | undefined {
    const r = (m as { request: UndiciRequest }).request;
    const url = `${r.origin ?? ''}${r.path ?? ''}`;
    if (r.method === 'POST' && url === this.hubUrl) return 'publish';
    if (r.method === 'POST' && r.path?.includes('/callback/')) return 'delivery';
    if (r.method === 'GET' && this.isResource(url)) return 'get';
    return undefined;
  }

  private isResource(url: string): boolean {
    return this.resource !== undefined && url === this.resource.href;
  }

  /** A sample starts: the Source is about to make its change. */
  begin(): number {
    this.t0 = performance.now();
    this.marks = new Map();
    this.resource = undefined;
    return this.t0;
  }

  /** The changed resource, once known (its GET is told apart from the others by it). */
  target(uri: string): void {
    this.resource = new URL(uri);
  }

  mark(stage: Stage): void {
    if (this.t0 === 0 || this.marks.has(stage)) return;
    this.marks.set(stage, performance.now() - this.t0);
  }

  /** Ends the sample; kept (for the table) when `keep`. */
  end(keep: boolean): void {
    if (keep) this.samples.push(this.marks);
    this.t0 = 0;
  }

  /**
   * Waits until `path` holds `expected` (or is gone when undefined), reading it only when inotify on
   * the file's directory reports it, or every 5 ms should an event be missed (every 1 ms when no
   * watch could be set: the directory may not exist yet). A read on every turn, as this did first,
   * took thread-pool and main-thread time from the subscriber it measures, which shares this
   * process: p50 read 0.2-0.4 ms higher for ours and 0.05-0.1 ms for the floor subscriber. (The
   * watch misses the floor subscriber's rename in about one sample of 14, never ours in 200 a run;
   * those samples read at the next poll, which can only make the floor look slower.)
   */
  async waitForFile(
    path: string,
    expected: Buffer | undefined,
    deadlineMs: number,
  ): Promise<number> {
    let watcher: FSWatcher | undefined;
    let wake: (() => void) | undefined;
    let reported = false;
    // When the file was last seen to change: the end of the path measured, once its bytes check out
    // (the bench's own read and compare come after and are not the subscriber's time).
    let seenAt: number | undefined;
    try {
      watcher = watch(dirname(path), (_e, name) => {
        if (name === basename(path)) {
          seenAt = performance.now();
          this.mark('file in place (renamed, seen by inotify)');
          reported = true;
          wake?.();
        }
      });
    } catch {
      watcher = undefined;
    }
    const pollMs = watcher ? 5 : 1;
    try {
      for (let read = watcher === undefined; ; read = true) {
        if (read) {
          const bytes = await readFile(path).catch(() => undefined);
          if (expected ? bytes?.equals(expected) : bytes === undefined) {
            this.mark('file bytes checked (bench)');
            return seenAt ?? performance.now();
          }
        }
        if (performance.now() - this.t0 > deadlineMs) throw new Error(`no file for ${path}`);
        if (reported) {
          reported = false;
          continue;
        }
        await new Promise<void>((r) => {
          const timer = setTimeout(r, pollMs);
          wake = () => {
            clearTimeout(timer);
            r();
          };
        });
        wake = undefined;
        reported = false;
      }
    } finally {
      watcher?.close();
    }
  }

  close(): void {
    for (const [name, fn] of this.subs) diagnosticsChannel.unsubscribe(name, fn);
  }

  /** Median time since the change per stage, and the median of each hop (stage minus previous). */
  table(): string {
    const med = (xs: number[]): number => {
      const s = [...xs].sort((a, b) => a - b);
      return s.length === 0 ? NaN : s[Math.floor(s.length / 2)]!;
    };
    const lines = ['| stage | since change, median ms | hop from previous stage, median ms | n |'];
    lines.push('|---|---:|---:|---:|');
    let prev: Stage | undefined;
    for (const stage of STAGES) {
      const at = this.samples.map((s) => s.get(stage)).filter((x): x is number => x !== undefined);
      const hops = this.samples
        .map((s) => {
          const a = s.get(stage);
          const b = prev === undefined ? 0 : s.get(prev);
          return a !== undefined && b !== undefined ? a - b : undefined;
        })
        .filter((x): x is number => x !== undefined);
      lines.push(`| ${stage} | ${med(at).toFixed(2)} | ${med(hops).toFixed(2)} | ${at.length} |`);
      prev = stage;
    }
    return lines.join('\n');
  }
}
