// A fake ResourceSync Source for the bridge's tests (a party outside the project, speaking real HTTP
// on 127.0.0.1): a Capability List, a Change List Index with one open Change List whose entries the
// test appends, ETag/Last-Modified validators with 304s, and scripted answers (503 + Retry-After,
// slow responses) to check how the bridge treats a Source.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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
  readonly entries: { uri: string; time: string; change: string }[] = [];
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
  add(uri: string, time = new Date().toISOString(), change = 'updated'): void {
    this.entries.push({ uri: `${this.baseUrl}/r/${uri}`, time, change });
    this.revision++;
  }

  requestsTo(path: string): SourceRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  private body(path: string): string | undefined {
    const head = '<?xml version="1.0" encoding="UTF-8"?>\n';
    const ns =
      'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"';
    if (path === '/.well-known/resourcesync') {
      return `${head}<urlset ${ns}><rs:md capability="description"/><url><loc>${this.baseUrl}/capabilitylist.xml</loc><rs:md capability="capabilitylist"/></url></urlset>`;
    }
    if (path === '/capabilitylist.xml') {
      return `${head}<urlset ${ns}><rs:md capability="capabilitylist"/><url><loc>${this.baseUrl}/resourcelist.xml</loc><rs:md capability="resourcelist"/></url><url><loc>${this.baseUrl}/changelist.xml</loc><rs:md capability="changelist"/></url></urlset>`;
    }
    if (path === '/changelist.xml') {
      return `${head}<sitemapindex ${ns}><rs:md capability="changelist" from="${this.from}"/><sitemap><loc>${this.baseUrl}/changelist/1.xml</loc><rs:md capability="changelist" from="${this.from}"/></sitemap></sitemapindex>`;
    }
    if (path === '/changelist/1.xml') {
      const urls = this.entries
        .map(
          (e) => `<url><loc>${e.uri}</loc><rs:md change="${e.change}" datetime="${e.time}"/></url>`,
        )
        .join('');
      return `${head}<urlset ${ns}><rs:md capability="changelist" from="${this.from}"/>${urls}</urlset>`;
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
