import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { CountedHistogram } from './counted-histogram.js';

export type DeliveryOutcomeLabel = 'delivered' | 'failed' | 'gone' | 'gave_up';

/** What the gauges read at scrape time. */
export interface MetricSources {
  subscriptionCounts(): Promise<{ active: number; expired: number; pending: number }>;
  queueDepth(): number;
  inFlight(): number;
}

/** One registry per hub (several hubs may run in one test process). */
export class HubMetrics {
  readonly registry = new Registry();
  readonly notificationsAccepted: Counter<'kind'>;
  readonly publishRejected: Counter<'reason'>;
  readonly deliveries: Counter<'outcome'>;
  private readonly deliveryCounts: Record<DeliveryOutcomeLabel, number> = {
    delivered: 0,
    failed: 0,
    gone: 0,
    gave_up: 0,
  };
  /** Counted in plain numbers on the delivery path (counted-histogram.ts says why). */
  private readonly deliveryLatency: CountedHistogram;
  readonly verifications: Counter<'mode' | 'result'>;
  readonly topicChecks: Counter<'result'>;
  /** Every refusal at the HTTP layer that is not a publish refusal (forms, 415, 413, 431, 400, 501, 503). */
  readonly requestsRejected: Counter<'status' | 'reason'>;
  /** Per callback origin: 0 closed, 1 half-open, 2 open (delivery/breaker.ts). */
  readonly originBreakerState: Gauge<'origin'>;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    // Process metrics (CPU, memory, event-loop lag, handles) under their standard names.
    collectDefaultMetrics({ register: this.registry });
    this.notificationsAccepted = new Counter({
      name: 'rsnotify_hub_notifications_accepted_total',
      help: 'Notifications accepted (answered 200) and stored',
      labelNames: ['kind'],
      registers,
    });
    this.publishRejected = new Counter({
      name: 'rsnotify_hub_publish_rejected_total',
      help: 'Publish requests refused with 4xx',
      labelNames: ['reason'],
      registers,
    });
    const deliveries: Counter<'outcome'> = new Counter({
      name: 'rsnotify_hub_deliveries_total',
      help: 'Delivery attempts by outcome',
      labelNames: ['outcome'],
      registers,
      // Counted as plain numbers on the delivery path (countDelivery), read in at scrape time:
      // prom-client hashes the label set on every inc, once per delivery at a fan-out.
      collect: () => {
        deliveries.reset();
        for (const [outcome, n] of Object.entries(this.deliveryCounts))
          if (n > 0) deliveries.inc({ outcome }, n);
      },
    });
    this.deliveries = deliveries;
    this.deliveryLatency = new CountedHistogram({
      name: 'rsnotify_hub_delivery_latency_seconds',
      help: 'From acceptance of a notification to its acknowledged delivery',
      buckets: [
        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300,
      ],
      registers,
    });
    this.verifications = new Counter({
      name: 'rsnotify_hub_verifications_total',
      help: 'Verifications of intent and denials by result',
      labelNames: ['mode', 'result'],
      registers,
    });
    this.requestsRejected = new Counter({
      name: 'rsnotify_hub_requests_rejected_total',
      help: 'Requests refused at the HTTP layer (other than publish refusals) by status and reason',
      labelNames: ['status', 'reason'],
      registers,
    });
    this.originBreakerState = new Gauge({
      name: 'rsnotify_hub_origin_breaker_state',
      help: 'Delivery circuit breaker per callback origin: 0 closed, 1 half-open, 2 open',
      labelNames: ['origin'],
      registers,
    });
    this.topicChecks = new Counter({
      name: 'rsnotify_hub_topic_checks_total',
      help: 'RT-6 topic URI checks by result',
      labelNames: ['result'],
      registers,
    });
    new Gauge({
      name: 'rsnotify_hub_subscriptions',
      help: 'Subscriptions by state',
      labelNames: ['state'],
      registers,
      async collect() {
        const c = await sources.subscriptionCounts();
        this.set({ state: 'active' }, c.active);
        this.set({ state: 'expired' }, c.expired);
        this.set({ state: 'pending' }, c.pending);
      },
    });
    new Gauge({
      name: 'rsnotify_hub_delivery_queue_depth',
      help: 'Notifications not yet delivered, summed over subscriptions',
      registers,
      collect() {
        this.set(sources.queueDepth());
      },
    });
    new Gauge({
      name: 'rsnotify_hub_deliveries_in_flight',
      help: 'Delivery requests in flight',
      registers,
      collect() {
        this.set(sources.inFlight());
      },
    });
  }

  /** One delivery attempt's outcome (rsnotify_hub_deliveries_total). */
  countDelivery(outcome: DeliveryOutcomeLabel): void {
    this.deliveryCounts[outcome]++;
  }

  /** One acknowledged delivery's latency in seconds (rsnotify_hub_delivery_latency_seconds). */
  observeDeliveryLatency(seconds: number): void {
    this.deliveryLatency.record(seconds);
  }
}
