// The one place deliveries leave the hub: a POST through the shared keep-alive Agent (SSRF guard in
// its connector), every response body drained and ignored (WH-19), no redirects followed.
// A bare `dispatch` with a handler that only counts the response body: `request` builds a body
// stream, a promise and listeners per response that a delivery never reads (each delivery is one
// POST, so at a fan-out to 1,000 callbacks that is per-delivery CPU and garbage for nothing).
import type { Dispatcher } from 'undici';
import { classifyError, classifyStatus, type DeliveryOutcome } from './outcome.js';

export interface DeliveryTarget {
  readonly origin: string;
  /** Path and query string of the callback, exactly as subscribed (WH-7, WH-15). */
  readonly path: string;
}

export function deliveryTarget(callback: string): DeliveryTarget {
  const u = new URL(callback);
  return { origin: u.origin, path: `${u.pathname}${u.search}` };
}

export interface SendOptions {
  readonly timeoutMs: number;
  /** Response bodies are ignored; at most this much is read before the connection is dropped. */
  readonly maxResponseBytes?: number;
}

/**
 * One POST's handler: a class, so a delivery allocates one object, not a closure per callback.
 * It settles once: with the status when the response ends, is cut off past the body limit, or fails
 * after the status line; with the error's code when there was no answer at all.
 */
class DeliveryHandler implements Dispatcher.DispatchHandler {
  private status = 0;
  private read = 0;
  private abort: ((err?: Error) => void) | undefined;
  private settled = false;

  constructor(
    private readonly limit: number,
    private readonly resolve: (outcome: DeliveryOutcome) => void,
  ) {}

  settle(outcome: DeliveryOutcome): void {
    if (this.settled) return;
    this.settled = true;
    this.resolve(outcome);
  }

  onConnect(abort: (err?: Error) => void): void {
    this.abort = abort;
  }

  onHeaders(statusCode: number): boolean {
    this.status = statusCode;
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.read += chunk.length;
    // Past the limit the connection is dropped; the status is what counts (WH-19).
    if (this.read > this.limit) {
      this.settle(classifyStatus(this.status));
      this.abort?.();
    }
    return true;
  }

  onComplete(): void {
    this.settle(classifyStatus(this.status));
  }

  onError(err: Error): void {
    // Once the status line is in, a failure while reading the ignored body changes nothing.
    this.settle(this.status > 0 ? classifyStatus(this.status) : classifyError(err));
  }
}

export function createSender(agent: Dispatcher, options: SendOptions) {
  const limit = options.maxResponseBytes ?? 64 * 1024;
  return function sendDelivery(
    target: DeliveryTarget,
    headers: Record<string, string>,
    body: Buffer,
  ): Promise<DeliveryOutcome> {
    return new Promise((resolve) => {
      const handler = new DeliveryHandler(limit, resolve);
      try {
        agent.dispatch(
          {
            origin: target.origin,
            path: target.path,
            method: 'POST',
            headers,
            // Handed over whole, not as a stream of slices: a callback that answers 410 and closes
            // before reading a large body must still be read as gone (WH-19). Written a slice per
            // turn, an 8 MiB body lost that answer to EPIPE in every try (test/bench/results/profile.md).
            body,
            headersTimeout: options.timeoutMs,
            bodyTimeout: options.timeoutMs,
          },
          handler,
        );
      } catch (err) {
        handler.settle(classifyError(err));
      }
    });
  };
}

export type SendDelivery = ReturnType<typeof createSender>;
