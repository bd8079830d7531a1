// Cross-process wake-ups: every committed change another hub process must act on is sent with
// pg_notify on one channel (inside the committing transaction, so it arrives only if the change
// committed), and each process LISTENs on a dedicated connection that reconnects by itself. After a
// reconnect, notifications sent meanwhile are lost, so listeners get a 'resync' event and re-read.
import pg from 'pg';
import { clientConfig } from './connection.js';

export const HUB_CHANNEL = 'rsnotify_hub';

export type StoreEvent =
  | { readonly kind: 'published'; readonly topicId: number; readonly seq: number }
  | { readonly kind: 'subscription'; readonly id: number }
  | { readonly kind: 'removed'; readonly id: number }
  | { readonly kind: 'intent' }
  | { readonly kind: 'sources' }
  | { readonly kind: 'resync' };

/**
 * Compact payloads ("p:12:340", "s:7", "r:7", "i", "c"); pure, table-tested. A batch appended in
 * one statement builds its 'published' payload in SQL (appends.ts: the topic's id and last seq are
 * known only there); the store test decodes what that statement sends.
 */
export function encodeEvent(e: StoreEvent): string {
  switch (e.kind) {
    case 'published':
      return `p:${e.topicId}:${e.seq}`;
    case 'subscription':
      return `s:${e.id}`;
    case 'removed':
      return `r:${e.id}`;
    case 'intent':
      return 'i';
    case 'sources':
      return 'c';
    case 'resync':
      return 'x';
  }
}

export function decodeEvent(payload: string): StoreEvent | undefined {
  const [k, a, b] = payload.split(':');
  const num = (v: string | undefined) =>
    v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
  switch (k) {
    case 'p': {
      const topicId = num(a);
      const seq = num(b);
      return topicId !== undefined && seq !== undefined
        ? { kind: 'published', topicId, seq }
        : undefined;
    }
    case 's': {
      const id = num(a);
      return id !== undefined ? { kind: 'subscription', id } : undefined;
    }
    case 'r': {
      const id = num(a);
      return id !== undefined ? { kind: 'removed', id } : undefined;
    }
    case 'i':
      return { kind: 'intent' };
    case 'c':
      return { kind: 'sources' };
    default:
      return undefined;
  }
}

export class StoreEvents {
  private client: pg.Client | undefined;
  private readonly handlers = new Set<(e: StoreEvent) => void>();
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  /** Moves on every Source change and on every reconnect (a change may have been missed). */
  sourcesMarker = 0;
  /** False while the listening connection is down. */
  connected = false;

  constructor(
    private readonly url: string,
    private readonly enabled: boolean,
  ) {}

  on(handler: (e: StoreEvent) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  async start(): Promise<void> {
    if (!this.enabled || this.closed) return;
    const client = new pg.Client(clientConfig(this.url));
    client.on('notification', (m) => {
      if (m.channel !== HUB_CHANNEL || m.payload === undefined) return;
      const e = decodeEvent(m.payload);
      if (e) this.emit(e);
    });
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.connected = false;
      client.end().catch(() => undefined);
      this.scheduleRetry();
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
      await client.query(`LISTEN ${HUB_CHANNEL}`);
    } catch {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      this.scheduleRetry();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.connected = true;
    this.sourcesMarker++;
    this.emit({ kind: 'resync' });
  }

  private scheduleRetry(): void {
    if (this.closed || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.start();
    }, 500);
    this.retryTimer.unref();
  }

  private emit(e: StoreEvent): void {
    if (e.kind === 'sources') this.sourcesMarker++;
    for (const h of this.handlers) {
      try {
        h(e);
      } catch {
        /* a handler's failure is its own business */
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const c = this.client;
    this.client = undefined;
    this.connected = false;
    if (c) await c.end().catch(() => undefined);
  }
}
