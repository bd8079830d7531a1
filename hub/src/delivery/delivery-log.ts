// The scheduler's log lines, one event a line with the topic and callback they concern.
import type { Logger } from '../observability/index.js';
import type { SubState } from './subscription-state.js';

type Sub = Pick<SubState, 'topicUrl' | 'callback'>;

const about = (sub: Sub) => ({ topic: sub.topicUrl, callback: sub.callback });

export const deliveryLog = {
  expired(log: Logger, sub: Sub): void {
    log.info({ event: 'subscription.expired', ...about(sub) }, 'lease expired');
  },
  /** The row is gone (pruned by a bug or by hand): nothing can ever deliver it, so say so loudly. */
  missing(log: Logger, sub: Sub, seq: number): void {
    log.error(
      { event: 'delivery.missing_notification', ...about(sub), seq },
      'notification row missing',
    );
  },
  succeeded(log: Logger, sub: Sub, seq: number): void {
    if (log.isLevelEnabled('debug'))
      log.debug({ event: 'delivery.succeeded', ...about(sub), seq }, 'delivered');
  },
  failed(
    log: Logger,
    sub: Sub,
    seq: number,
    failure: { status?: number; code?: string; attempts: number; retryInMs: number },
  ): void {
    log.info(
      { event: 'delivery.failed', ...about(sub), seq, ...failure },
      'delivery failed; will retry',
    );
  },
  gone(log: Logger, sub: Sub, seq: number): void {
    log.info(
      { event: 'subscription.gone', ...about(sub), seq },
      'callback answered 410; subscription ended',
    );
  },
  goneNotDeleted(log: Logger, sub: Sub, err: unknown): void {
    log.error({ event: 'store.error', err, ...about(sub) }, 'could not delete a gone subscription');
  },
  gaveUp(log: Logger, sub: Sub, seq: number, reason: string): void {
    log.warn({ event: 'delivery.gave_up', ...about(sub), seq, reason }, 'delivery given up');
  },
};
