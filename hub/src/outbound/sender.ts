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

export function createSender(agent: Dispatcher, options: SendOptions) {
  const limit = options.maxResponseBytes ?? 64 * 1024;
  return function sendDelivery(
    target: DeliveryTarget,
    headers: Record<string, string>,
    body: Buffer,
  ): Promise<DeliveryOutcome> {
    return new Promise((resolve) => {
      let status = 0;
      let read = 0;
      let abort: ((err?: Error) => void) | undefined;
      let settled = false;
      const settle = (outcome: DeliveryOutcome): void => {
        if (settled) return;
        settled = true;
        resolve(outcome);
      };
      const handler: Dispatcher.DispatchHandler = {
        onConnect(a) {
          abort = a;
        },
        onHeaders(statusCode) {
          status = statusCode;
          return true;
        },
        onData(chunk) {
          read += chunk.length;
          // Past the limit the connection is dropped; the status is what counts (WH-19).
          if (read > limit) {
            settle(classifyStatus(status));
            abort?.();
          }
          return true;
        },
        onComplete() {
          settle(classifyStatus(status));
        },
        onError(err) {
          // Once the status line is in, a failure while reading the ignored body changes nothing.
          settle(status > 0 ? classifyStatus(status) : classifyError(err));
        },
      };
      try {
        agent.dispatch(
          {
            origin: target.origin,
            path: target.path,
            method: 'POST',
            headers,
            body,
            headersTimeout: options.timeoutMs,
            bodyTimeout: options.timeoutMs,
          },
          handler,
        );
      } catch (err) {
        settle(classifyError(err));
      }
    });
  };
}

export type SendDelivery = ReturnType<typeof createSender>;
