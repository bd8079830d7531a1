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
  /** How often the store is read again while the backlog waits for room (default 1 s). */
  readonly backlogRefreshMs?: number;
  readonly onSubscribed: (s: Subscription) => void;
  readonly onUnsubscribed: (s: Subscription) => void;
}

const MAX_CHALLENGE_ECHO = 1024;
/**
 * Due intents read per pass: far more than can run, so that intents of other origins behind a
 * long run of one slow origin's intents are found (intents come in id order). What cannot start yet
 * is kept (the backlog) and tried again as verifications finish; the store is read again only when
 * the backlog is used up or new intents may be due (something was queued, or the timer fired).
 * Reading the window again at every finished verification cost O(pending) per verification: 1,000
 * subscriptions took seconds to verify, mapping millions of rows.
 */
const DUE_WINDOW = 4096;
/** How often the store is read again while the backlog holds intents waiting for room. */
const BACKLOG_REFRESH_MS = 1_000;

/** A due intent waiting for room, with what the fairness rules look at worked out once. */
interface Pending {
  readonly intent: Intent;
  /** Topic and callback: one verification per pair at a time. */
  readonly pair: string;
  readonly origin: string;
  /** A later request for the same pair replaced this intent in the store: it is not verified. */
  superseded: boolean;
}

function pendingOf(intent: Intent): Pending {
  return {
    intent,
    pair: `${intent.topicUrl}\n${intent.callback}`,
    origin: originOf(intent.callback),
    superseded: false,
  };
}

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
  /** Due intents read from the store and not started yet, in due order. */
  private backlog: Pending[] = [];
  /** The backlog's entry per (topic, callback): the store keeps one pending intent per pair. */
  private readonly backlogByPair = new Map<string, Pending>();
  /** New intents may be due that the backlog does not hold. */
  private backlogStale = true;
  /** Verifications that ended while the store was being read: what the read returned of them is stale. */
  private endedDuringRead: Set<number> | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** When `timer` fires (ms, the injected clock). */
  private timerAt = 0;
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

  /** Something was queued, or the timer fired: look for due intents in the store. */
  wake(): void {
    this.backlogStale = true;
    this.resume();
  }

  /**
   * This process stored a new intent: it is due now, after everything already due, so it joins the
   * end of the backlog without reading the store again (a read per request made a burst of N
   * subscriptions cost O(N²) rows). While a read is under way the read may have missed it: read again.
   */
  queued(intent: Intent): void {
    if (this.backlogStale || this.endedDuringRead) this.backlogStale = true;
    else this.addToBacklog(pendingOf(intent));
    this.resume();
  }

  /** The store deleted the pair's earlier pending intent when it added this one (addIntent). */
  private addToBacklog(p: Pending): void {
    const earlier = this.backlogByPair.get(p.pair);
    if (earlier) earlier.superseded = true;
    this.backlogByPair.set(p.pair, p);
    this.backlog.push(p);
  }

  /** A verification finished: start what the backlog holds. */
  private resume(): void {
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
      let read = false;
      do {
        this.tickAgain = false;
        if (this.closed || this.active.size >= this.deps.concurrency) break;
        if (this.backlogStale || this.backlog.length === 0) {
          this.backlogStale = false;
          read = true;
          const ended = new Set<number>();
          this.endedDuringRead = ended;
          const due = await this.deps.store
            .dueIntents(this.deps.now(), Math.max(DUE_WINDOW, this.deps.concurrency * 4))
            .finally(() => (this.endedDuringRead = undefined));
          this.backlog = [];
          this.backlogByPair.clear();
          for (const intent of due) if (!ended.has(intent.id)) this.addToBacklog(pendingOf(intent));
        }
        this.startFromBacklog();
      } while (this.tickAgain && !this.closed);
      // While the backlog holds intents, finishing verifications drive the worker. The timer armed
      // for the earliest due intent would fire every 10 ms then (the backlog's are due), so the store
      // is read again once a second instead: an intent that comes due meanwhile (a retry) is not kept
      // waiting behind a backlog that one hanging origin drains four at a time.
      if (this.backlog.length > 0) this.armBacklogRefresh();
      else if (read) await this.armTimer();
    } catch (err) {
      this.backlogStale = true;
      this.deps.logger.error(
        { event: 'store.error', err: describeError(err) },
        'could not read pending intents',
      );
    } finally {
      this.ticking = false;
    }
  }

  /**
   * Starts what the backlog holds, in due order, while there is room. An intent read while its own
   * verification ran is dropped (that run deletes or reschedules it); the rest wait for room.
   */
  private startFromBacklog(): void {
    const kept: Pending[] = [];
    let i = 0;
    for (; i < this.backlog.length && this.active.size < this.deps.concurrency; i++) {
      const p = this.backlog[i]!;
      if (p.superseded || this.active.has(p.intent.id)) this.forget(p);
      else if (this.tryStart(p)) this.forget(p);
      else kept.push(p);
    }
    this.backlog = i === 0 ? this.backlog : kept.concat(this.backlog.slice(i));
  }

  private forget(p: Pending): void {
    if (this.backlogByPair.get(p.pair) === p) this.backlogByPair.delete(p.pair);
  }

  /** Starts the verification of an intent if the fairness rules leave room for it. */
  private tryStart({ intent, pair, origin }: Pending): boolean {
    // One verification per (topic, callback) at a time, so a later request is applied after an earlier one.
    if (this.busyPairs.has(pair)) return false;
    // Per-origin fairness: an origin whose callbacks hang holds at most `perOrigin` slots.
    const atOrigin = this.activePerOrigin.get(origin) ?? 0;
    if (atOrigin >= (this.deps.perOrigin ?? 4)) return false;
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
        this.endedDuringRead?.add(intent.id);
        this.busyPairs.delete(pair);
        const left = (this.activePerOrigin.get(origin) ?? 1) - 1;
        if (left > 0) this.activePerOrigin.set(origin, left);
        else this.activePerOrigin.delete(origin);
        this.resume();
      });
    this.active.set(intent.id, run);
    return true;
  }

  /** A read of the store within BACKLOG_REFRESH_MS; one already due sooner is kept. */
  private armBacklogRefresh(): void {
    if (this.closed) return;
    const every = this.deps.backlogRefreshMs ?? BACKLOG_REFRESH_MS;
    const at = this.deps.now() + every;
    if (this.timer && this.timerAt <= at) return;
    this.setTimer(every);
  }

  private setTimer(delayMs: number): void {
    this.clearTimer();
    this.timerAt = this.deps.now() + delayMs;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.wake();
    }, delayMs);
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async armTimer(): Promise<void> {
    if (this.closed) return;
    const next = await this.deps.store.nextIntentDueAt();
    this.clearTimer();
    if (next === undefined) return;
    this.setTimer(Math.min(Math.max(10, next - this.deps.now()), 60_000));
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
