// The hub's outbound GET (verification of intent, WH-11/WH-12): through the shared SSRF-guarded
// agent, no redirects followed, time-outs on headers and body, and at most `maxBodyBytes` of the
// body read: a longer body is reported as such, never buffered.
import type { Dispatcher } from 'undici';
import { describeError } from '@rsnotify/shared';
import { deliveryTarget } from './sender.js';

export interface GetOptions {
  readonly timeoutMs: number;
  /** Body bytes read at most; beyond them the connection is dropped and `overLimit` is set. */
  readonly maxBodyBytes: number;
}

export type GetResult =
  | {
      readonly kind: 'answered';
      readonly status: number;
      /** The body as UTF-8 text; empty when it was over the limit. */
      readonly body: string;
      readonly overLimit: boolean;
    }
  /** No answer: a time-out, a refused or reset connection, an address the SSRF guard refused. */
  | { readonly kind: 'unreachable'; readonly code: string | undefined };

export function createGetter(agent: Dispatcher, options: GetOptions) {
  return async function getText(url: string): Promise<GetResult> {
    const target = deliveryTarget(url);
    try {
      const res = await agent.request({
        origin: target.origin,
        path: target.path,
        method: 'GET',
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      });
      let body = '';
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > options.maxBodyBytes) {
          res.body.destroy();
          break;
        }
        body += (chunk as Buffer).toString('utf8');
      }
      const overLimit = size > options.maxBodyBytes;
      return { kind: 'answered', status: res.statusCode, body: overLimit ? '' : body, overLimit };
    } catch (err) {
      return { kind: 'unreachable', code: describeError(err).code };
    }
  };
}

export type GetText = ReturnType<typeof createGetter>;
