// The one way both daemons read a request body: bytes counted as they arrive, refused past a limit
// without buffering the rest, and a refused request answered before its connection is cut. Cutting
// the socket while the client is still sending makes it see EPIPE/ECONNRESET instead of the status,
// so a refusal keeps reading (and discarding) a bounded amount first, then closes.
import type { IncomingMessage } from 'node:http';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';

export type BodyRead =
  | { readonly ok: true; readonly bytes: Buffer }
  | {
      readonly ok: false;
      readonly status: 400 | 413 | 503;
      readonly code: BodyRefusalCode;
      readonly reason: string;
    };

/** Stable codes: too large (413), unreadable or cut short (400), unauthenticated byte budget spent (503). */
export type BodyRefusalCode =
  'RSN_BODY_TOO_LARGE' | 'RSN_BODY_UNREADABLE' | 'RSN_BODY_BUDGET_EXHAUSTED';

/** How much of a refused body is still read and thrown away, and for how long, before the close. */
export interface DrainBounds {
  readonly maxBytes: number;
  readonly maxMs: number;
}

/** After a 413: enough that a client sending max+1 bytes always reads its answer. */
export const REFUSED_BODY_DRAIN: DrainBounds = { maxBytes: 1024 * 1024, maxMs: 5_000 };
/** After a refusal that did not look at the body (401, 403, 400 on headers): a small amount only. */
export const UNREAD_BODY_DRAIN: DrainBounds = { maxBytes: 64 * 1024, maxMs: 2_000 };

/**
 * Bytes in flight from requests nobody has authenticated (subscription forms, open publishing),
 * summed over all connections: one client opening many connections cannot make the daemon buffer
 * more than `max` of them at once.
 */
export class ByteBudget {
  private used = 0;
  constructor(readonly max: number) {}

  get inUse(): number {
    return this.used;
  }

  tryTake(bytes: number): boolean {
    if (this.used + bytes > this.max) return false;
    this.used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}

export interface ReadBodyOptions {
  /** Largest accepted body in bytes; one byte more is a 413. */
  readonly limit: number;
  /** Charged the declared length up front, or each chunk as it arrives, until the read ends. */
  readonly budget?: ByteBudget;
  readonly drain?: DrainBounds;
}

function tooLarge(limit: number): BodyRead {
  return {
    ok: false,
    status: 413,
    code: 'RSN_BODY_TOO_LARGE',
    reason: `body larger than ${limit} bytes`,
  };
}

function declaredLength(incoming: IncomingMessage): number | undefined {
  const v = incoming.headers['content-length'];
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/**
 * Keeps reading a request we have answered (or will answer) without its body, discarding the bytes;
 * past `bounds.maxBytes` it stops reading (TCP back-pressure holds the client, which can still read
 * the answer), and after `bounds.maxMs` the connection is closed. Closing at once would reset the
 * connection while the client still sends, and a reset can destroy the answer before it is read.
 */
export function drainRefused(
  incoming: IncomingMessage,
  bounds: DrainBounds = UNREAD_BODY_DRAIN,
): void {
  if (incoming.readableEnded || incoming.destroyed) return;
  let seen = 0;
  const onData = (chunk: Buffer): void => {
    seen += chunk.length;
    if (seen > bounds.maxBytes) {
      incoming.off('data', onData);
      incoming.pause();
    }
  };
  const cleanup = (): void => {
    clearTimeout(timer);
    incoming.off('data', onData);
    incoming.off('end', cleanup);
    incoming.off('error', cleanup);
  };
  const timer = setTimeout(() => {
    cleanup();
    incoming.socket?.destroy();
  }, bounds.maxMs);
  timer.unref();
  incoming.on('data', onData);
  incoming.on('end', cleanup);
  incoming.on('error', cleanup);
  incoming.resume();
}

/**
 * Reads a node request body with a byte limit. A declared Content-Length above the limit is refused
 * before anything is read; past the limit the rest is drained within `drain` bounds, so the 413
 * reaches the client. Without a stream (a plain fetch Request), `fallback` reads it.
 */
export function readLimitedBody(
  incoming: IncomingMessage,
  options: ReadBodyOptions,
): Promise<BodyRead> {
  const { limit, budget } = options;
  const drain = options.drain ?? REFUSED_BODY_DRAIN;
  const declared = declaredLength(incoming);
  if (declared !== undefined && declared > limit) {
    drainRefused(incoming, drain);
    return Promise.resolve(tooLarge(limit));
  }
  const busy = (): BodyRead => ({
    ok: false,
    status: 503,
    code: 'RSN_BODY_BUDGET_EXHAUSTED',
    reason: 'too many unauthenticated request bodies in flight; retry later',
  });
  // A declared length is charged up front (so a refusal comes before any byte is read); otherwise
  // each chunk is charged as it arrives.
  let charged = 0;
  if (budget && declared !== undefined) {
    if (!budget.tryTake(declared)) {
      drainRefused(incoming, UNREAD_BODY_DRAIN);
      return Promise.resolve(busy());
    }
    charged = declared;
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (b: BodyRead): void => {
      if (done) return;
      done = true;
      budget?.give(charged);
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
      resolve(b);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        finish(tooLarge(limit));
        drainRefused(incoming, drain);
        return;
      }
      if (budget && size > charged) {
        if (!budget.tryTake(size - charged)) {
          chunks.length = 0;
          finish(busy());
          drainRefused(incoming, UNREAD_BODY_DRAIN);
          return;
        }
        charged = size;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      if (done) return;
      // The body is whole: no later event can refuse it, so it is answered once copied together.
      incoming.off('close', onClose);
      incoming.off('error', onError);
      void concatInSlices(chunks, size).then((bytes) => finish({ ok: true, bytes }));
    };
    const onError = (err: Error): void =>
      finish({
        ok: false,
        status: 400,
        code: 'RSN_BODY_UNREADABLE',
        reason: `could not read the request body: ${err.message}`,
      });
    const onClose = (): void =>
      finish({
        ok: false,
        status: 400,
        code: 'RSN_BODY_UNREADABLE',
        reason: 'request closed before its body was complete',
      });
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
    if (incoming.readableEnded) onEnd();
  });
}

/** How much one step of a sliced copy moves: about a millisecond of memcpy. */
export const COPY_SLICE_BYTES = 1024 * 1024;

/**
 * Buffer.concat without one long copy: a 16 MiB body copied in one piece held the event loop for
 * 15-20 ms on a loaded machine; here the copy yields every `sliceBytes`.
 */
export async function concatInSlices(
  chunks: readonly Buffer[],
  size: number,
  sliceBytes: number = COPY_SLICE_BYTES,
): Promise<Buffer> {
  if (chunks.length === 1) return chunks[0]!;
  if (size <= sliceBytes) return Buffer.concat(chunks, size);
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  let sinceYield = 0;
  for (const c of chunks) {
    c.copy(out, at);
    at += c.length;
    sinceYield += c.length;
    if (sinceYield >= sliceBytes) {
      sinceYield = 0;
      await yieldToEventLoop();
    }
  }
  return out;
}

/** The same limit over a fetch-style request (tests driving an app without a socket). */
export async function readLimitedWebBody(
  request: { arrayBuffer(): Promise<ArrayBuffer> },
  limit: number,
): Promise<BodyRead> {
  try {
    const ab = await request.arrayBuffer();
    if (ab.byteLength > limit) return tooLarge(limit);
    return { ok: true, bytes: Buffer.from(ab) };
  } catch (err) {
    return {
      ok: false,
      status: 400,
      code: 'RSN_BODY_UNREADABLE',
      reason: `could not read the request body: ${(err as Error).message}`,
    };
  }
}
