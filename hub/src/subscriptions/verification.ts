// Verification of intent (WH-11, WH-12, RT-10, RT-12) and denial (WH-14): the URL to GET and the
// judgement of the answer. Pure.
import { WEBSUB } from '@rsnotify/shared';
import type { IntentMode } from '../store/index.js';
import { backoff } from '@rsnotify/service-kit';

/** WH-7: hub.* parameters are appended with & to the callback's own query string, never replacing it. */
export function verificationUrl(
  callback: string,
  params: {
    mode: IntentMode;
    topic: string;
    challenge?: string;
    leaseSeconds?: number;
    reason?: string;
  },
): string {
  const q = new URLSearchParams();
  q.set(WEBSUB.mode, params.mode);
  q.set(WEBSUB.topic, params.topic);
  if (params.challenge !== undefined) q.set(WEBSUB.challenge, params.challenge);
  if (params.leaseSeconds !== undefined) q.set(WEBSUB.leaseSeconds, String(params.leaseSeconds));
  if (params.reason !== undefined) q.set(WEBSUB.reason, params.reason);
  const hash = callback.indexOf('#');
  const base = hash >= 0 ? callback.slice(0, hash) : callback;
  const sep = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${sep}${q.toString()}`;
}

export type VerificationResult =
  | { readonly kind: 'verified' }
  /** The subscriber answered, and not with intent: final (WH-12). */
  | { readonly kind: 'refused'; readonly status: number; readonly reason: string }
  /** No answer (connection error, timeout): worth another try. */
  | { readonly kind: 'unreachable'; readonly code: string };

/** WH-12: success only on a 2xx whose body is exactly the challenge; 3xx is failure (no redirects). */
export function judgeVerification(
  status: number,
  body: string,
  challenge: string,
): VerificationResult {
  if (status < 200 || status > 299) return { kind: 'refused', status, reason: `status ${status}` };
  if (body !== challenge) return { kind: 'refused', status, reason: 'body is not the challenge' };
  return { kind: 'verified' };
}

/** When to try an unreachable callback again, or undefined to give up (bounded, WH-3 "as soon as possible"). */
export function verificationRetryAt(
  attempts: number,
  now: number,
  maxAttempts = 4,
  baseDelayMs = 1000,
): number | undefined {
  if (attempts >= maxAttempts) return undefined;
  return (
    now +
    backoff(
      attempts,
      { baseMs: baseDelayMs, maxMs: Number.MAX_SAFE_INTEGER, jitter: 'none' },
      Math.random,
    )
  );
}
