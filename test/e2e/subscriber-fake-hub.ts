// A small WebSub hub that speaks real HTTP, for subscriber tests that need what the real hub never
// does on purpose: answer 307, refuse with 4xx/5xx, deny, verify before answering 202, sign with the
// wrong secret or not at all. It relays the Source's fat pings (RT-4) to every verified subscriber.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { signatureHeader } from '@rsnotify/shared';

export interface FakeSubscription {
  callback: string;
  topic: string;
  secret?: string;
  leaseSeconds?: number;
  state: 'pending' | 'active' | 'failed' | 'unsubscribed';
}

export interface FakeHubBehaviour {
  /** Status for subscribe/unsubscribe POSTs (default 202). 307/308 redirect to `redirectTo`. */
  subscribeStatus: number;
  subscribeBody: string;
  redirectTo?: string;
  /** Verify synchronously before answering (WS-7: the subscriber must already have its record). */
  verifyBeforeAnswer: boolean;
  /** Deny instead of verifying (WS-10). */
  deny: boolean;
  /** Lease granted (seconds); default: as requested, else 600. */
  leaseSeconds?: number;
  /** Signature on deliveries: correct, wrong secret, or none. */
  signing: 'correct' | 'wrong' | 'none';
  /**
   * Keep a confirmed subscription pending until activate(), as a hub does until its store has it:
   * a fat ping relayed meanwhile reaches nobody.
   */
  holdActivation: boolean;
}

export interface FakeHub {
  readonly url: string;
  readonly behaviour: FakeHubBehaviour;
  /** Every form request received (subscribe/unsubscribe), decoded. */
  readonly requests: Record<string, string>[];
  readonly subscriptions: FakeSubscription[];
  /** Statuses of deliveries, in order. */
  readonly deliveries: { callback: string; status: number }[];
  /** Deliver a body to every active subscription of `topic` (the fat ping path uses this too). */
  deliver(topic: string, body: Buffer, link?: string): Promise<void>;
  /** Activates the subscriptions holdActivation kept pending. */
  activate(): void;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function startFakeHub(initial: Partial<FakeHubBehaviour> = {}): Promise<FakeHub> {
  const behaviour: FakeHubBehaviour = {
    subscribeStatus: 202,
    subscribeBody: '',
    verifyBeforeAnswer: false,
    deny: false,
    signing: 'correct',
    holdActivation: false,
    ...initial,
  };
  const requests: Record<string, string>[] = [];
  const subscriptions: FakeSubscription[] = [];
  const deliveries: { callback: string; status: number }[] = [];
  let chain: Promise<void> = Promise.resolve();

  const verify = async (params: Record<string, string>): Promise<void> => {
    const mode = params['hub.mode']!;
    const callback = params['hub.callback']!;
    const topic = params['hub.topic']!;
    const u = new URL(callback);
    if (behaviour.deny && mode === 'subscribe') {
      u.searchParams.set('hub.mode', 'denied');
      u.searchParams.set('hub.topic', topic);
      u.searchParams.set('hub.reason', 'denied by the fake hub');
      const res = await request(u.href);
      await res.body.dump();
      return;
    }
    const challenge = randomBytes(12).toString('hex');
    const lease =
      behaviour.leaseSeconds ??
      (params['hub.lease_seconds'] ? Number(params['hub.lease_seconds']) : 600);
    u.searchParams.set('hub.mode', mode);
    u.searchParams.set('hub.topic', topic);
    u.searchParams.set('hub.challenge', challenge);
    if (mode === 'subscribe') u.searchParams.set('hub.lease_seconds', String(lease));
    const res = await request(u.href);
    const text = await res.body.text();
    const ok = res.statusCode >= 200 && res.statusCode < 300 && text === challenge;
    const existing = subscriptions.find((s) => s.callback === callback && s.topic === topic);
    if (mode === 'subscribe') {
      const rec: FakeSubscription = {
        callback,
        topic,
        ...(params['hub.secret'] ? { secret: params['hub.secret'] } : {}),
        leaseSeconds: lease,
        state: ok ? (behaviour.holdActivation ? 'pending' : 'active') : 'failed',
      };
      if (existing) Object.assign(existing, rec);
      else subscriptions.push(rec);
    } else if (ok && existing) {
      existing.state = 'unsubscribed';
    }
  };

  const deliver = async (topic: string, body: Buffer, link?: string): Promise<void> => {
    for (const s of subscriptions.filter((x) => x.state === 'active' && x.topic === topic)) {
      const headers: Record<string, string> = {
        'content-type': 'application/xml',
        link: link ?? `<${topic}>; rel="self", <${url}>; rel="hub"`,
      };
      if (s.secret && behaviour.signing !== 'none')
        headers['x-hub-signature'] = signatureHeader(
          'sha256',
          behaviour.signing === 'wrong' ? 'not-the-secret' : s.secret,
          body,
        );
      try {
        const res = await request(s.callback, { method: 'POST', body, headers });
        await res.body.dump();
        deliveries.push({ callback: s.callback, status: res.statusCode });
        if (res.statusCode === 410) s.state = 'unsubscribed';
      } catch {
        deliveries.push({ callback: s.callback, status: 0 });
      }
    }
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const body = await readBody(req);
      const type = String(req.headers['content-type'] ?? '');
      if (req.method === 'POST' && type.startsWith('application/x-www-form-urlencoded')) {
        const params = Object.fromEntries(new URLSearchParams(body.toString('utf8')));
        requests.push({ ...params, path: req.url ?? '' });
        const status = behaviour.subscribeStatus;
        if (
          (status === 307 || status === 308) &&
          behaviour.redirectTo &&
          req.url !== new URL(behaviour.redirectTo, 'http://x').pathname
        ) {
          res.writeHead(status, { location: behaviour.redirectTo }).end();
          return;
        }
        if ((status >= 200 && status < 300) || status === 307 || status === 308) {
          if (behaviour.verifyBeforeAnswer) await verify(params).catch(() => undefined);
          res.writeHead(202, { 'content-type': 'text/plain' }).end(behaviour.subscribeBody);
          if (!behaviour.verifyBeforeAnswer)
            setTimeout(() => void verify(params).catch(() => undefined), 5);
          return;
        }
        res.writeHead(status, { 'content-type': 'text/plain' }).end(behaviour.subscribeBody);
        return;
      }
      if (req.method === 'POST' && type.startsWith('application/xml')) {
        // RT-4 fat ping from the Source: relay in order (M-3).
        const links = String(req.headers.link ?? '');
        const self = /<([^>]+)>\s*;\s*rel="?self"?/.exec(links)?.[1];
        res.writeHead(200).end();
        if (self) chain = chain.then(() => deliver(self, body, links));
        return;
      }
      res.writeHead(400, { 'content-type': 'text/plain' }).end('bad request');
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hub`;
  return {
    url,
    behaviour,
    requests,
    subscriptions,
    deliveries,
    deliver,
    activate() {
      for (const sub of subscriptions) if (sub.state === 'pending') sub.state = 'active';
    },
    async close() {
      await chain.catch(() => undefined);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
