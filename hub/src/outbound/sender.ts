// The one place deliveries leave the hub: a POST through the shared keep-alive Agent (SSRF guard in
// its connector), every response body drained and ignored (WH-19), no redirects followed.
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
  return async function sendDelivery(
    target: DeliveryTarget,
    headers: Record<string, string>,
    body: Buffer,
  ): Promise<DeliveryOutcome> {
    try {
      const res = await agent.request({
        origin: target.origin,
        path: target.path,
        method: 'POST',
        headers,
        body,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      });
      try {
        await res.body.dump({ limit });
      } catch {
        /* the status is what counts */
      }
      return classifyStatus(res.statusCode);
    } catch (err) {
      return classifyError(err);
    }
  };
}

export type SendDelivery = ReturnType<typeof createSender>;
