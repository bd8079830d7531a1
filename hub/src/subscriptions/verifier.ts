// The verification worker (WH-3, WH-11, WH-12, WH-14): carries out pending intents after the 202,
// from the store, so a restart resumes them. A subscription changes only once its intent is verified
// (WH-9); a verified intent is applied in one transaction and handed to the delivery scheduler.
import { randomBytes } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { describeError } from '@rsnotify/shared';
import type { Logger, HubMetrics } from '../observability/index.js';
import type { HubRepository, Intent, Subscription } from '../store/index.js';
import { createGetter, type GetText } from '../outbound/index.js';
import {
  judgeVerification,
  verificationRetryAt,
  verificationUrl,
  type VerificationResult,
} from './verification.js';
import { hasLeaseLapsed, leaseExpiry } from './lease.js';

export interface VerifierDeps {
  readonly store: HubRepository;
  readonly agent: Dispatcher;
  readonly logger: Logger;
  readonly metrics: HubMetrics;
  readonly now: () => number;
  readonly timeoutMs: number;
  readonly concurrency: number;
  /** Verifications in flight per callback origin (default 4): one slow origin cannot take them all. */
  readonly perOrigin?: number;
  readonly onSubscribed: (s: Subscription) => void;
  readonly onUnsubscribed: (s: Subscription) => void;
}

const MAX_CHALLENGE_ECHO = 1024;
/**
 * Due intents read per pass: far more than can run, so that intents of other origins behind a
 * long run of one slow origin's intents are found (intents come in id order).
 */
const DUE_WINDOW = 4096;

function originOf(callback: string): string {
  try {
    return new URL(callback).origin;
  } catch {
    return callback;
  }
}

export class VerificationWorker {
  private readonly active = new Map<number, Promise<void>>();
  private readonly busyPairs = new Set<string>();
  private readonly activePerOrigin = new Map<string, number>();
  private ticking = false;
  private tickAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  private readonly getText: GetText;

  constructor(private readonly deps: VerifierDeps) {
    this.getText = createGetter(deps.agent, {
      timeoutMs: deps.timeoutMs,
      maxBodyBytes: MAX_CHALLENGE_ECHO,
    });
  }

  start(): void {
    this.wake();
  }

  /** Something was queued (or finished): look for due intents. */
  wake(): void {
    if (this.closed) return;
    void this.tick();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.allSettled([...this.active.values()]);
  }

  private async tick(): Promise<void> {
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    this.ticking = true;
    try {
      do {
        this.tickAgain = false;
        if (this.closed || this.active.size >= this.deps.concurrency) break;
        const due = await this.deps.store.dueIntents(
          this.deps.now(),
          Math.max(DUE_WINDOW, this.deps.concurrency * 4),
        );
        const perOrigin = this.deps.perOrigin ?? 4;
        for (const intent of due) {
          if (this.active.size >= this.deps.concurrency) break;
          const pair = `${intent.topicUrl}\n${intent.callback}`;
          // One verification per (topic, callback) at a time, so a later request is applied after an earlier one.
          if (this.active.has(intent.id) || this.busyPairs.has(pair)) continue;
          // Per-origin fairness: an origin whose callbacks hang holds at most `perOrigin` slots.
          const origin = originOf(intent.callback);
          const atOrigin = this.activePerOrigin.get(origin) ?? 0;
          if (atOrigin >= perOrigin) continue;
          this.activePerOrigin.set(origin, atOrigin + 1);
          this.busyPairs.add(pair);
          const run = this.process(intent)
            .catch((err: unknown) => {
              this.deps.logger.error(
                {
                  event: 'verification.error',
                  err: describeError(err),
                  topic: intent.topicUrl,
                  callback: intent.callback,
                },
                'verification crashed',
              );
            })
            .finally(() => {
              this.active.delete(intent.id);
              this.busyPairs.delete(pair);
              const left = (this.activePerOrigin.get(origin) ?? 1) - 1;
              if (left > 0) this.activePerOrigin.set(origin, left);
              else this.activePerOrigin.delete(origin);
              this.wake();
            });
          this.active.set(intent.id, run);
        }
      } while (this.tickAgain && !this.closed);
      await this.armTimer();
    } catch (err) {
      this.deps.logger.error(
        { event: 'store.error', err: describeError(err) },
        'could not read pending intents',
      );
    } finally {
      this.ticking = false;
    }
  }

  private async armTimer(): Promise<void> {
    if (this.closed) return;
    const next = await this.deps.store.nextIntentDueAt();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (next === undefined) return;
    const delay = Math.max(10, next - this.deps.now());
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.wake();
      },
      Math.min(delay, 60_000),
    );
  }

  private async process(intent: Intent): Promise<void> {
    const { logger, metrics, store } = this.deps;
    const fields = { topic: intent.topicAsGiven, callback: intent.callback, mode: intent.mode };
    const challenge = intent.mode === 'denied' ? undefined : randomBytes(24).toString('base64url');
    const sentAt = this.deps.now();
    const url = verificationUrl(intent.callback, {
      mode: intent.mode,
      topic: intent.topicAsGiven,
      challenge,
      // WH-11: lease_seconds is required for subscribe, optional (and so left out) for unsubscribe.
      leaseSeconds: intent.mode === 'subscribe' ? intent.leaseSeconds : undefined,
      reason: intent.mode === 'denied' ? intent.reason : undefined,
    });
    const result = await this.get(url, challenge);
    if (result.kind === 'unreachable') {
      const attempts = intent.attempts + 1;
      const retryAt = verificationRetryAt(attempts, this.deps.now());
      if (
        retryAt !== undefined &&
        result.code !== 'RSN_OUTBOUND_PRIVATE_ADDRESS' &&
        result.code !== 'RSN_OUTBOUND_BAD_URL'
      ) {
        logger.info(
          { event: 'verification.retry', ...fields, code: result.code, attempts },
          'callback unreachable; will retry',
        );
        await store.rescheduleIntent(intent.id, attempts, retryAt);
        return;
      }
      metrics.verifications.inc({ mode: intent.mode, result: 'unreachable' });
      logger.info(
        { event: 'verification.failed', ...fields, code: result.code, attempts },
        'callback unreachable; intent dropped',
      );
      await store.deleteIntent(intent.id);
      return;
    }
    if (intent.mode === 'denied') {
      metrics.verifications.inc({ mode: 'denied', result: 'sent' });
      logger.info(
        { event: 'subscription.denied', ...fields, reason: intent.reason },
        'denial sent',
      );
      await store.deleteIntent(intent.id);
      return;
    }
    if (result.kind === 'refused') {
      // WH-9: a failed verification leaves the existing state unchanged.
      metrics.verifications.inc({ mode: intent.mode, result: 'refused' });
      logger.info(
        { event: 'verification.failed', ...fields, status: result.status, reason: result.reason },
        'subscriber did not confirm intent',
      );
      await store.deleteIntent(intent.id);
      return;
    }
    metrics.verifications.inc({ mode: intent.mode, result: 'verified' });
    if (intent.mode === 'subscribe') {
      const leaseSeconds = intent.leaseSeconds!;
      const sub = await store.activateSubscription({
        topicUrl: intent.topicUrl,
        topicAsGiven: intent.topicAsGiven,
        callback: intent.callback,
        secret: intent.secret,
        algorithm: 'sha256',
        leaseSeconds,
        leaseExpiresAt: leaseExpiry(sentAt, leaseSeconds),
        now: this.deps.now(),
        hasLapsed: hasLeaseLapsed,
      });
      await store.deleteIntent(intent.id);
      logger.info(
        {
          event: 'subscription.verified',
          ...fields,
          leaseSeconds,
          signed: sub.secret !== undefined,
        },
        'subscription active',
      );
      this.deps.onSubscribed(sub);
    } else {
      const removed = await store.removeSubscription(intent.topicUrl, intent.callback);
      await store.deleteIntent(intent.id);
      logger.info(
        { event: 'subscription.unsubscribed', ...fields, existed: removed !== undefined },
        'unsubscription verified',
      );
      if (removed) this.deps.onUnsubscribed(removed);
    }
  }

  /** The verification GET (outbound/): no redirects followed (WH-12), at most a little of the body read. */
  private async get(url: string, challenge: string | undefined): Promise<VerificationResult> {
    const r = await this.getText(url);
    if (r.kind === 'unreachable')
      return { kind: 'unreachable', code: r.code ?? 'RSN_VERIFICATION_ERROR' };
    if (challenge === undefined) return { kind: 'verified' };
    return judgeVerification(r.status, r.body, challenge);
  }
}
