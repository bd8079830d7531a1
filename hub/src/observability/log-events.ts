// Every log event the hub writes, with its one field set. The logger's level methods accept
// only these lines (see @rsnotify/service-kit's logger for the message policy), and the README's
// "Log events" list names the same events: test/log-events.test.ts fails when the two drift.
// A new event is added here first; its name is `area.what` in snake_case.

export interface HubLogEvents {
  'admin.rejection_not_recorded': {
    err: unknown;
  };
  'bridge.coverage_gap': {
    source: string;
    from?: string | undefined;
    to: string;
  };
  'bridge.discovered': {
    source: string;
    capabilityList: string;
    changeList: string;
  };
  'bridge.list_rewritten': {
    url: string;
  };
  'bridge.poll_failed': {
    source: string;
    code?: string | undefined;
    error: string;
    failures: number;
  };
  'bridge.poll_superseded': {
    source: string;
  };
  'bridge.published': {
    topic: string;
    notifications: number;
    entries: number;
    until?: string | undefined;
  };
  'bridge.polling_started': {
    sources: number;
  };
  'bridge.polling_stopped': object;
  'bridge.source_added': {
    name: string;
    pollUrl: string;
    intervalMs: number;
    topic: string;
  };
  'bridge.started': {
    source: string;
    coveredTo: string;
  };
  'cluster.claim_lost': {
    subscription: number;
  };
  'cluster.claimed': {
    count: number;
    claims: number;
    liveNodes: number;
  };
  'cluster.claims_dropped': {
    count: number;
  };
  'cluster.heartbeat_failed': {
    err?: unknown;
    claims: number;
  };
  'cluster.leader': {
    node: string;
  };
  'cluster.leader_lost': {
    node: string;
  };
  'cluster.released': {
    count: number;
    claims: number;
    liveNodes: number;
  };
  'cluster.reload_failed': {
    err?: unknown;
    subscription: number;
  };
  'connection.refused': {
    client: string;
    refused: number;
    limit: number;
  };
  'delivery.failed': {
    topic: string;
    callback: string;
    seq: number;
    status?: number | undefined;
    code?: string | undefined;
    attempts: number;
    retryInMs: number;
  };
  'delivery.gave_up': {
    topic: string;
    callback: string;
    seq: number;
    reason: string;
  };
  'delivery.missing_notification': {
    topic: string;
    callback: string;
    seq: number;
  };
  'delivery.origin_breaker_closed': {
    origin: string;
    from: string;
    failures: number;
    retryAt?: string | undefined;
  };
  'delivery.origin_breaker_half_open': {
    origin: string;
    from: string;
    failures: number;
    retryAt?: string | undefined;
  };
  'delivery.origin_breaker_open': {
    origin: string;
    from: string;
    failures: number;
    retryAt?: string | undefined;
  };
  'delivery.succeeded': {
    topic: string;
    callback: string;
    seq: number;
  };
  'hub.listening': {
    url: string;
    port: number;
    db: string;
    node?: string | undefined;
    openPublishing: boolean;
    allowPrivateNetworks: boolean;
  };
  'hub.stopped': {
    url: string;
  };
  'notification.pruned': {
    count: number;
  };
  'publish.accepted': {
    topic: string;
    seq: number;
    bytes: number;
    source?: string | undefined;
  };
  'publish.rejected': {
    status?: number | undefined;
    refusal?: string | undefined;
    code: string;
    reason: string;
    topic?: string | undefined;
  };
  'request.client_error': {
    code?: string | undefined;
    status: number;
  };
  'request.error': {
    err?: unknown;
    path: string;
  };
  'request.rejected': {
    status: number;
    reason: string;
  };
  'request.store_unavailable': {
    path: string;
  };
  'source.added': {
    name: string;
    topicPrefixes: readonly string[];
  };
  'store.checkpoint_failed': {
    file: string;
    error: string;
  };
  'store.cursor_save_failed': {
    err: unknown;
    count: number;
  };
  'store.error': {
    err?: unknown;
    topic?: string | undefined;
    callback?: string | undefined;
  };
  'subscription.denied': {
    reason?: string | undefined;
    topic: string;
    callback: string;
    mode: string;
  };
  'subscription.expired': {
    topic: string;
    callback: string;
  };
  'subscription.gone': {
    topic: string;
    callback: string;
    seq: number;
  };
  'subscription.rejected': {
    topic: string;
    callback: string;
    code?: string | undefined;
  };
  'subscription.removed_elsewhere': {
    subscription: number;
  };
  'subscription.requested': {
    mode: string;
    topic: string;
    callback: string;
    denied: boolean;
    leaseSeconds?: number | undefined;
  };
  'subscription.unsubscribed': {
    existed: boolean;
    topic: string;
    callback: string;
    mode: string;
  };
  'subscription.verified': {
    leaseSeconds: number;
    signed: boolean;
    topic: string;
    callback: string;
    mode: string;
  };
  'topic.noncompliant': {
    topic: string;
    problems: string[];
  };
  'verification.error': {
    err?: unknown;
    topic: string;
    callback: string;
  };
  'verification.failed': {
    code?: string | undefined;
    attempts?: number | undefined;
    topic: string;
    callback: string;
    mode: string;
    status?: number | undefined;
    reason?: string | undefined;
  };
  'verification.retry': {
    code: string;
    attempts: number;
    topic: string;
    callback: string;
    mode: string;
  };
}

export type HubLogEvent = keyof HubLogEvents;

/** The declared events at run time (the README test reads it); the compiler keeps it complete. */
export const HUB_LOG_EVENTS = Object.keys({
  'subscription.removed_elsewhere': true,
  'connection.refused': true,
  'bridge.polling_stopped': true,
  'bridge.polling_started': true,
  'bridge.poll_superseded': true,
  'admin.rejection_not_recorded': true,
  'bridge.coverage_gap': true,
  'bridge.discovered': true,
  'bridge.list_rewritten': true,
  'bridge.poll_failed': true,
  'bridge.published': true,
  'bridge.source_added': true,
  'bridge.started': true,
  'cluster.claim_lost': true,
  'cluster.claimed': true,
  'cluster.claims_dropped': true,
  'cluster.heartbeat_failed': true,
  'cluster.leader': true,
  'cluster.leader_lost': true,
  'cluster.released': true,
  'cluster.reload_failed': true,
  'delivery.failed': true,
  'delivery.gave_up': true,
  'delivery.missing_notification': true,
  'delivery.origin_breaker_closed': true,
  'delivery.origin_breaker_half_open': true,
  'delivery.origin_breaker_open': true,
  'delivery.succeeded': true,
  'hub.listening': true,
  'hub.stopped': true,
  'notification.pruned': true,
  'publish.accepted': true,
  'publish.rejected': true,
  'request.client_error': true,
  'request.error': true,
  'request.rejected': true,
  'request.store_unavailable': true,
  'source.added': true,
  'store.checkpoint_failed': true,
  'store.cursor_save_failed': true,
  'store.error': true,
  'subscription.denied': true,
  'subscription.expired': true,
  'subscription.gone': true,
  'subscription.rejected': true,
  'subscription.requested': true,
  'subscription.unsubscribed': true,
  'subscription.verified': true,
  'topic.noncompliant': true,
  'verification.error': true,
  'verification.failed': true,
  'verification.retry': true,
} satisfies Record<HubLogEvent, true>) as HubLogEvent[];
