// The console suites' rig: the real hub on a real SQLite file, an admin token made with the real CLI,
// and a callback receiver (a party outside the project, so a fake, speaking real HTTP) whose answer
// can be switched per callback path.
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { startHub, type HubOptions, type RunningHub } from '@rsnotify/hub';
import { changeNotificationXml } from '@rsnotify/service-kit/testing';

const HUB_CLI = fileURLToPath(new URL('../../../hub/src/cli.ts', import.meta.url));

/** Runs `rsnotify-hub ARGS` (from source) to completion; stdout and stderr apart. */
export function runHubCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--conditions=@rsnotify/source', '--import', 'tsx', HUB_CLI, ...args],
      {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
    });
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface Delivered {
  readonly path: string;
  readonly body: string;
  readonly headers: IncomingMessage['headers'];
}

export class CallbackReceiver {
  readonly delivered: Delivered[] = [];
  /** Status answered to deliveries, per callback path; 200 when unset. */
  readonly answer = new Map<string, number>();
  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
  ) {}

  static async start(): Promise<CallbackReceiver> {
    let r!: CallbackReceiver;
    const server = createServer((req, res) => r.handle(req, res));
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    r = new CallbackReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return r;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const u = new URL(req.url ?? '/', this.baseUrl);
    if (req.method === 'GET') {
      res
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(u.searchParams.get('hub.challenge') ?? '');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = this.answer.get(u.pathname) ?? 200;
      if (status < 300)
        this.delivered.push({
          path: u.pathname,
          body: Buffer.concat(chunks).toString('utf8'),
          headers: req.headers,
        });
      res.writeHead(status).end();
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((ok) => this.server.close(() => ok()));
  }
}

export interface ConsoleRig {
  readonly dir: string;
  readonly dbFile: string;
  readonly hub: RunningHub;
  readonly origin: string;
  readonly adminToken: string;
  readonly receiver: CallbackReceiver;
}

export async function startConsoleRig(
  t: { after: (fn: () => Promise<void>) => void },
  options: Partial<HubOptions> = {},
): Promise<ConsoleRig> {
  const dir = await mkdtemp(join(tmpdir(), 'rsn-console-'));
  const dbFile = join(dir, 'hub.db');
  const created = await runHubCli(['admin', 'token', 'create', 'ops', '--db', dbFile]);
  if (created.code !== 0) throw new Error(`admin token create failed: ${created.stderr}`);
  const adminToken = created.stdout.trim();
  const hub = await startHub({
    host: '127.0.0.1',
    port: 0,
    dbFile,
    allowPrivateNetworks: true,
    leaseMinSeconds: 1,
    checkTopics: false,
    logLevel: process.env.RSN_E2E_LOG ? 'debug' : 'silent',
    ...options,
  });
  const receiver = await CallbackReceiver.start();
  t.after(async () => {
    await hub.close();
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { dir, dbFile, hub, origin: new URL(hub.url).origin, adminToken, receiver };
}

export async function api<T = unknown>(
  rig: { origin: string; adminToken: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; data: T; text: string }> {
  const res = await request(`${rig.origin}/admin/api${path}`, {
    method: method as 'GET',
    headers: {
      authorization: `Bearer ${rig.adminToken}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.body.text();
  return { status: res.statusCode, data: (text ? JSON.parse(text) : undefined) as T, text };
}

export async function subscribe(
  hubUrl: string,
  topic: string,
  callback: string,
  secret?: string,
): Promise<number> {
  const form = new URLSearchParams({
    'hub.mode': 'subscribe',
    'hub.topic': topic,
    'hub.callback': callback,
    'hub.lease_seconds': '600',
  });
  if (secret) form.set('hub.secret', secret);
  const res = await request(hubUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  await res.body.dump();
  return res.statusCode;
}

export function notification(tag: string): string {
  return changeNotificationXml({
    from: '2026-01-01T00:00:00Z',
    until: '2026-01-01T00:00:01Z',
    entries: [
      { loc: `http://source.test/res/${tag}`, change: 'updated', datetime: '2026-01-01T00:00:00Z' },
    ],
  });
}

export async function publishTo(
  hubUrl: string,
  topic: string,
  token: string,
  tag: string,
): Promise<{ status: number; text: string }> {
  const res = await request(hubUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/xml',
      authorization: `Bearer ${token}`,
      link: `<${topic}>; rel="self", <${hubUrl}>; rel="hub"`,
    },
    body: notification(tag),
  });
  return { status: res.statusCode, text: await res.body.text() };
}
