// Test fixtures for the hub: real HTTP callback receivers (a party outside the project, so a fake is
// allowed, but it speaks real HTTP), notification payloads, and small HTTP helpers. No imports from test/.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { startHub, type HubOptions, type RunningHub } from '@rsnotify/hub';
import * as kit from '@rsnotify/service-kit/testing';

export interface Delivery {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
  readonly at: number;
}

export interface Verification {
  readonly path: string;
  readonly query: URLSearchParams;
  readonly at: number;
}

export type VerifyBehaviour =
  | 'echo'
  | 'wrong-body'
  | 'not-found'
  | 'redirect'
  | ((q: URLSearchParams) => { status: number; body: string; headers?: Record<string, string> });
export type DeliverBehaviour =
  number | 'hang' | 'reset' | ((d: Delivery) => number | 'hang' | 'reset');

/** A callback receiver on 127.0.0.1: answers verifications and records deliveries per path. */
export class Receiver {
  readonly deliveries: Delivery[] = [];
  readonly verifications: Verification[] = [];
  verify: VerifyBehaviour = 'echo';
  deliver: DeliverBehaviour = 200;
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
  ) {}

  static async start(port = 0): Promise<Receiver> {
    let receiver!: Receiver;
    const server = createServer((req, res) => receiver.handle(req, res));
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    receiver = new Receiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return receiver;
  }

  url(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  deliveriesTo(pathPrefix: string): Delivery[] {
    return this.deliveries.filter((d) => d.path.startsWith(pathPrefix));
  }

  verificationsTo(pathPrefix: string): Verification[] {
    return this.verifications.filter((v) => v.path.startsWith(pathPrefix));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const u = new URL(req.url ?? '/', this.baseUrl);
    if (req.method === 'GET') {
      this.verifications.push({
        path: `${u.pathname}${u.search}`,
        query: u.searchParams,
        at: Date.now(),
      });
      const b = this.verify;
      if (typeof b === 'function') {
        const r = b(u.searchParams);
        res.writeHead(r.status, { 'content-type': 'text/plain', ...r.headers }).end(r.body);
      } else if (b === 'echo')
        res
          .writeHead(200, { 'content-type': 'text/plain' })
          .end(u.searchParams.get('hub.challenge') ?? '');
      else if (b === 'wrong-body')
        res.writeHead(200).end(`${u.searchParams.get('hub.challenge') ?? ''}x`);
      else if (b === 'redirect')
        res.writeHead(302, { location: `${this.baseUrl}/elsewhere${u.search}` }).end();
      else res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const d: Delivery = {
        path: `${u.pathname}${u.search}`,
        headers: req.headers,
        body: Buffer.concat(chunks),
        at: Date.now(),
      };
      const b = typeof this.deliver === 'function' ? this.deliver(d) : this.deliver;
      if (b === 'hang') {
        this.hanging.add(res);
        return;
      }
      if (b === 'reset') {
        req.socket.destroy();
        return;
      }
      if (b >= 200 && b < 300) this.deliveries.push(d);
      res.writeHead(b, b >= 300 && b < 400 ? { location: `${this.baseUrl}/moved` } : {}).end();
    });
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.socket?.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

let counter = 0;

/** A valid change notification (RN-1..RN-3) with `n` entries; `tag` is written into each loc. */
export function notificationXml(
  tag: string,
  n = 1,
  from = '2026-01-01T00:00:00Z',
  until = '2026-01-01T00:00:01Z',
): string {
  return kit.changeNotificationXml({
    from,
    until,
    entries: Array.from({ length: n }, (_, i) => ({
      loc: `http://source.test/res/${tag}/${i}`,
      change: 'updated' as const,
      datetime: from,
    })),
  });
}

export function linkHeader(topic: string, hub: string, extra = ''): string {
  return `<${topic}>; rel="self", <${hub}>; rel="hub"${extra}`;
}

export async function tempDir(t: TestContext, prefix = 'rsnotify-hub-test-'): Promise<string> {
  const temp = await kit.tempDir(prefix);
  t.after(() => temp.remove());
  const dir = temp.dir;
  return dir;
}

export async function hubFor(
  t: TestContext,
  options: Partial<HubOptions> = {},
): Promise<{ hub: RunningHub; dir: string; dbFile: string }> {
  const dir = await tempDir(t);
  const dbFile = join(dir, 'hub.db');
  const hub = await startHub({
    host: '127.0.0.1',
    port: 0,
    dbFile,
    allowPrivateNetworks: true,
    logLevel: 'silent',
    leaseMinSeconds: 1,
    ...options,
  });
  t.after(() => hub.close());
  return { hub, dir, dbFile };
}

export async function receiverFor(t: TestContext): Promise<Receiver> {
  const r = await Receiver.start();
  t.after(() => r.close());
  return r;
}

/**
 * An origin that accepts every request and never answers (a callback that hangs): `url` is its
 * base, `requests` how many it holds open. Closed, connections and all, when the test ends.
 */
export async function hangingOriginFor(
  t: TestContext,
): Promise<{ readonly url: string; requests(): number }> {
  const open = new Set<ServerResponse>();
  const server = createServer((_req, res) => void open.add(res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(async () => {
    for (const res of open) res.socket?.destroy();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => open.size,
  };
}

export interface Answer {
  status: number;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

export async function postForm(
  url: string,
  params: Record<string, string | string[]> | string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  let body: string;
  if (typeof params === 'string') body = params;
  else {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params))
      for (const one of Array.isArray(v) ? v : [v]) q.append(k, one);
    body = q.toString();
  }
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body,
  });
  return { status: res.statusCode, text: await res.body.text(), headers: res.headers };
}

export async function publish(
  url: string,
  body: string | Buffer,
  headers: Record<string, string>,
): Promise<Answer> {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/xml', ...headers },
    body,
  });
  return { status: res.statusCode, text: await res.body.text(), headers: res.headers };
}

/**
 * Publishes one notification per tag to `topic`, as the Source that holds `token`, one after the
 * other; each must be answered 200 (RT-7, M-2: stored before the answer).
 */
export async function publishTags(
  hub: RunningHub,
  token: string,
  topic: string,
  tags: readonly string[],
): Promise<void> {
  for (const tag of tags) {
    const a = await publish(hub.url, notificationXml(tag), {
      link: linkHeader(topic, hub.url),
      authorization: `Bearer ${token}`,
    });
    assert.equal(a.status, 200, `publish ${tag}: ${a.text}`);
  }
}

export async function get(url: string): Promise<Answer> {
  const res = await request(url);
  return { status: res.statusCode, text: await res.body.text(), headers: res.headers };
}

/** Subscribes `callback` and waits until the subscription is active (the receiver echoed the challenge). */
export async function subscribe(
  hub: RunningHub,
  receiver: Receiver,
  topic: string,
  path: string,
  extra: Record<string, string> = {},
): Promise<void> {
  const before = receiver.verificationsTo(path).length;
  const a = await postForm(hub.url, {
    'hub.mode': 'subscribe',
    'hub.topic': topic,
    'hub.callback': receiver.url(path),
    ...extra,
  });
  if (a.status !== 202) throw new Error(`subscribe answered ${a.status}: ${a.text}`);
  await waitFor(() => receiver.verificationsTo(path).length > before, `verification of ${path}`);
  // The subscription is applied right after the echo is read; a metrics scrape confirms it.
  await waitFor(async () => (await activeCount(hub)) >= 1, 'subscription active');
}

export async function activeCount(hub: RunningHub): Promise<number> {
  const text = (await get(new URL('/metrics', hub.url).href)).text;
  const m = /rsnotify_hub_subscriptions\{state="active"\} (\d+)/.exec(text);
  return m ? Number(m[1]) : 0;
}

export async function metricValue(hub: RunningHub, name: string, labels = ''): Promise<number> {
  const text = (await get(new URL('/metrics', hub.url).href)).text;
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line ? Number(line.split(' ').pop()) : 0;
}

export async function waitFor<T>(
  probe: () => T | Promise<T>,
  what: string,
  timeoutMs = 20_000,
): Promise<NonNullable<T>> {
  return kit.waitFor(probe, { what, timeoutMs, intervalMs: 20 });
}

export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}`;
}

// --- the CLI as a child process (a real process, so kill -9 is a real crash) ----------------------

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const HUB_DIR = fileURLToPath(new URL('..', import.meta.url));

export type HubProcess = kit.ManagedProcess;

export function spawnHubCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): HubProcess {
  return kit.spawnCli(CLI, args, { cwd: HUB_DIR, env });
}

/** Runs a short CLI command to completion. */
export async function runHubCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; lines: string[] }> {
  const p = spawnHubCli(args, env);
  const code = await p.exited;
  await new Promise((r) => setImmediate(r));
  return { code, lines: p.lines };
}
