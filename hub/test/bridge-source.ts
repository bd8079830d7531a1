// A fake ResourceSync Source for the bridge's tests (a party outside the project, speaking real HTTP
// on 127.0.0.1): a Capability List, a Change List Index with one open Change List whose entries the
// test appends, ETag/Last-Modified validators with 304s, and scripted answers (503 + Retry-After,
// slow responses) to check how the bridge treats a Source.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChangeType } from '@rsnotify/shared';
import { resourceSyncXml } from '@rsnotify/service-kit/testing';

export interface SourceRequest {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly at: number;
  readonly status: number;
}

type Script = (
  path: string,
) =>
  { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | undefined;

export class FakeSource {
  readonly requests: SourceRequest[] = [];
  readonly entries: { uri: string; time: string; change: ChangeType }[] = [];
  /** Answers that replace the normal ones while set (return undefined to serve normally). */
  script: Script | undefined;
  inFlight = 0;
  maxInFlight = 0;
  readonly from = '2026-01-01T00:00:00Z';
  private revision = 0;

  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
  ) {}

  static async start(): Promise<FakeSource> {
    let source!: FakeSource;
    const server = createServer((req, res) => source.handle(req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    source = new FakeSource(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return source;
  }

  /** Appends a change to the open list, at the current time unless given. */
  add(uri: string, time = new Date().toISOString(), change: ChangeType = 'updated'): void {
    this.entries.push({ uri: `${this.baseUrl}/r/${uri}`, time, change });
    this.revision++;
  }

  requestsTo(path: string): SourceRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  private body(path: string): string | undefined {
    const loc = (p: string, capability: string) => ({ loc: `${this.baseUrl}${p}`, capability });
    if (path === '/.well-known/resourcesync') {
      return resourceSyncXml({
        capability: 'description',
        entries: [loc('/capabilitylist.xml', 'capabilitylist')],
      });
    }
    if (path === '/capabilitylist.xml') {
      return resourceSyncXml({
        capability: 'capabilitylist',
        entries: [loc('/resourcelist.xml', 'resourcelist'), loc('/changelist.xml', 'changelist')],
      });
    }
    if (path === '/changelist.xml') {
      return resourceSyncXml({
        capability: 'changelist',
        root: 'sitemapindex',
        md: { from: this.from },
        entries: [{ ...loc('/changelist/1.xml', 'changelist'), from: this.from }],
      });
    }
    if (path === '/changelist/1.xml') {
      return resourceSyncXml({
        capability: 'changelist',
        md: { from: this.from },
        entries: this.entries.map((e) => ({ loc: e.uri, change: e.change, datetime: e.time })),
      });
    }
    return undefined;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0]!;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    const finish = (status: number, headers: Record<string, string>, body?: string) => {
      this.requests.push({ path, headers: req.headers, at: Date.now(), status });
      res.writeHead(status, headers);
      res.end(body);
      this.inFlight--;
    };
    const scripted = this.script?.(path);
    const answer = () => {
      if (scripted) {
        finish(scripted.status, scripted.headers ?? {}, scripted.body);
        return;
      }
      const body = this.body(path);
      if (body === undefined) {
        finish(404, { 'content-type': 'text/plain' }, 'not found\n');
        return;
      }
      const etag = `"${path.startsWith('/changelist') ? this.revision : 'static'}"`;
      if (req.headers['if-none-match'] === etag) {
        finish(304, { etag });
        return;
      }
      finish(
        200,
        { 'content-type': 'application/xml', etag, 'last-modified': new Date(0).toUTCString() },
        body,
      );
    };
    if (scripted?.delayMs) setTimeout(answer, scripted.delayMs);
    else answer();
  }

  close(): Promise<void> {
    return new Promise((r) => {
      this.server.close(() => r());
      this.server.closeAllConnections();
    });
  }
}
