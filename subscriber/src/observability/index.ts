// observability/: the JSON logger (one event per line, stable `event` names, secrets redacted) and
// the Prometheus metrics of the subscriber.
import type { DestinationStream } from 'pino';
import { createEventLogger, type EventLogger } from '@rsnotify/service-kit';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { SubscriberLogEvents } from './log-events.js';

export type Logger = EventLogger<SubscriberLogEvents>;
export {
  SUBSCRIBER_LOG_EVENTS,
  type SubscriberLogEvent,
  type SubscriberLogEvents,
} from './log-events.js';

/**
 * The shared factory and message policy of @rsnotify/service-kit. Besides the fields censored in
 * both daemons, callback tokens (capabilities, WS-5) and the delivery signature header never appear.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return createEventLogger<SubscriberLogEvents>({
    service: 'rsnotify-subscriber',
    level,
    destination,
    redact: ['callbackToken', '*.callbackToken', 'headers["x-hub-signature"]'],
  });
}

export interface SubscriberMetrics {
  readonly registry: Registry;
  readonly deliveriesReceived: Counter<'source'>;
  readonly deliveriesIgnored: Counter<'source' | 'reason'>;
  readonly deliveriesRejected: Counter<'status'>;
  /** Refusals on the listener outside a delivery: request heads Node's parser refused (431, 400, 408, 501) and the status routes' 401/403/413. */
  readonly requestsRejected: Counter<'status' | 'reason'>;
  readonly deliveriesReadBack: Counter<'source'>;
  readonly notificationsApplied: Counter<'source'>;
  readonly notificationsSuperseded: Counter<'source' | 'reason'>;
  readonly changesApplied: Counter<'source' | 'outcome'>;
  readonly gaps: Counter<'source'>;
  readonly catchUps: Counter<'source' | 'result'>;
  readonly reconciles: Counter<'source' | 'outcome'>;
  readonly baselines: Counter<'source' | 'result'>;
  readonly channelChanges: Counter<'source' | 'change'>;
  readonly lagSeconds: Gauge<'source'>;
  readonly buffered: Gauge<'source'>;
}

export function createMetrics(): SubscriberMetrics {
  const registry = new Registry();
  // Process metrics (CPU, memory, event-loop lag, handles) under their standard names.
  collectDefaultMetrics({ register: registry });
  const c = <L extends string>(name: string, help: string, labelNames: L[]) =>
    new Counter<L>({ name, help, labelNames, registers: [registry] });
  const g = <L extends string>(name: string, help: string, labelNames: L[]) =>
    new Gauge<L>({ name, help, labelNames, registers: [registry] });
  return {
    registry,
    deliveriesReceived: c(
      'rsnotify_subscriber_deliveries_received_total',
      'Deliveries stored in the inbox',
      ['source'],
    ),
    deliveriesIgnored: c(
      'rsnotify_subscriber_deliveries_ignored_total',
      'Deliveries answered 2xx but ignored (bad signature, WS-15)',
      ['source', 'reason'],
    ),
    deliveriesRejected: c(
      'rsnotify_subscriber_deliveries_rejected_total',
      'Deliveries refused with a non-2xx status',
      ['status'],
    ),
    requestsRejected: c(
      'rsnotify_subscriber_requests_rejected_total',
      'Requests refused on the listener outside deliveries (oversized or malformed heads, status page 401/403/413), by status and reason',
      ['status', 'reason'],
    ),
    deliveriesReadBack: c(
      'rsnotify_subscriber_deliveries_read_back_total',
      'Deliveries that waited to be applied in the inbox alone (beyond queuedDeliveryBytes) and were read back from it',
      ['source'],
    ),
    notificationsApplied: c(
      'rsnotify_subscriber_notifications_applied_total',
      'Notifications applied in order',
      ['source'],
    ),
    notificationsSuperseded: c(
      'rsnotify_subscriber_notifications_superseded_total',
      'Notifications dropped as covered or duplicate',
      ['source', 'reason'],
    ),
    changesApplied: c('rsnotify_subscriber_changes_total', 'Resource changes by outcome', [
      'source',
      'outcome',
    ]),
    gaps: c('rsnotify_subscriber_gaps_total', 'Gaps detected between notifications', ['source']),
    catchUps: c('rsnotify_subscriber_catchups_total', 'Catch-ups from the Change Lists by result', [
      'source',
      'result',
    ]),
    reconciles: c(
      'rsnotify_subscriber_reconciles_total',
      'Reconciliations with the Resource List by outcome (in-sync, repaired, source-changing, failed)',
      ['source', 'outcome'],
    ),
    baselines: c(
      'rsnotify_subscriber_baselines_total',
      'Baselines from the Resource List by result (done, incomplete, failed); not counted as catch-ups',
      ['source', 'result'],
    ),
    channelChanges: c(
      'rsnotify_subscriber_channel_changes_total',
      'Push channel changes found by re-discovery (dropped: to polling, restored: back to push, moved)',
      ['source', 'change'],
    ),
    lagSeconds: g('rsnotify_subscriber_lag_seconds', 'Newest until received minus syncedUntil', [
      'source',
    ]),
    buffered: g(
      'rsnotify_subscriber_buffered_notifications',
      'Notifications waiting for a gap to close',
      ['source'],
    ),
  };
}

export { recordRejection, watchClientErrors } from './rejections.js';
