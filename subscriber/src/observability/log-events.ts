// Every log event the subscriber writes, with its one field set. The logger's level methods accept
// only these lines (see @rsnotify/service-kit's logger for the message policy), and the README's
// "Log events" list names the same events: test/log-events.test.ts fails when the two drift.
// A new event is added here first; its name is `area.what` in snake_case.

/** A subscribe request the hub refused, or could not be reached for. */
interface RefusedSubscribe {
  status?: number | undefined;
  body?: string | undefined;
  error?: string | undefined;
  subscriptionId: number;
  hub: string;
  topic: string;
  reason: string;
  attempt: number;
}

/** How the Change List reads after a fresh activation ended (runner/channel-policy.ts). */
interface ActivationSettlingEnd {
  subscriptionId: number;
  reads: number;
  syncedUntil?: string | undefined;
}

/** One failed change (runner/results.ts: the first FAILURE_LINES_PER_RECORD of a record). */
interface ChangeFailed {
  uri: string;
  change: string;
  code?: string | undefined;
  error?: string | undefined;
}

export interface SubscriberLogEvents {
  'apply.failed': {
    inboxId: number;
    failed: number;
    /** Of `failed`, those recorded before and still standing (runner/failure-memory.ts). */
    repeated: number;
    retryInMs: number;
  };
  'audit.completed': {
    source: string;
    inSync: boolean;
    checked: number;
    missing: number;
    extra: number;
    different: number;
  };
  'baseline.completed': {
    reason: string;
    at: string;
    resources: number;
  };
  'baseline.failed': {
    reason: string;
    error: string;
    code?: string | undefined;
  };
  'baseline.failures_resolved': {
    failed: number;
    resolved: number;
  };
  'baseline.incomplete': {
    reason: string;
    failed: number;
    resources: number;
  };
  'baseline.started': {
    reason: string;
    resourceList: string;
  };
  'catchup.completed': {
    why?: string | undefined;
  };
  'catchup.failed': {
    why?: string | undefined;
  };
  'catchup.history_gone': {
    why?: string | undefined;
  };
  'catchup.incomplete': {
    why?: string | undefined;
  };
  'catchup.partial': {
    why?: string | undefined;
  };
  'catchup.started': {
    reason: string;
    from: string;
    to?: string | undefined;
  };
  'catchup.up_to_date': {
    why?: string | undefined;
  };
  'channel.dropped': {
    reason: string;
    detail: string;
    hub?: string | undefined;
    topic?: string | undefined;
    mode: string;
  };
  'channel.moved': {
    hub?: string | undefined;
    topic?: string | undefined;
  };
  'channel.restored': {
    hub?: string | undefined;
    topic?: string | undefined;
    mode: string;
  };
  'delivery.bad_signature': {
    source: string;
    subscriptionId: number;
    reason: string;
  };
  'delivery.failed': {
    error: string;
  };
  'delivery.rejected': {
    status: number;
    code: string;
    maxBytes?: number | undefined;
  };
  'delivery.store_failed': {
    source: string;
    error: string;
  };
  'delivery.unsigned': {
    source: string;
    subscriptionId: number;
  };
  'discovery.completed': {
    route: string;
    mode: string;
    capabilityList: string;
    topic?: string | undefined;
    hub?: string | undefined;
    changed: boolean;
  };
  'discovery.failed': {
    url: string;
    code?: string | undefined;
    error: string;
  };
  'hook.failed': {
    uri: string;
    kind: string;
    error?: string | undefined;
    stderr?: string | undefined;
    status?: number | undefined;
  };
  'mirror.apply_failed': ChangeFailed;
  /** The failed changes of a record past FAILURE_LINES_PER_RECORD, counted per event. */
  'mirror.failures_unlogged': {
    logged: number;
    unlogged: number;
    byEvent: Record<string, number>;
  };
  'mirror.hash_mismatch': ChangeFailed;
  'mirror.layout_migrated': {
    moved: number;
    failed: number;
  };
  'mirror.layout_migration_failed': {
    failed: number;
    uri: string;
    error: string;
  };
  'mirror.length_mismatch': ChangeFailed;
  'mirror.outdated_change': {
    uris: number;
  };
  'mirror.path_refused': ChangeFailed;
  'mirror.resource_gone': ChangeFailed;
  'mirror.temp_swept': {
    mirrorDir: string;
    removed: number;
    failed: number;
  };
  'notification.applied': {
    inboxId: number;
    until: string;
    changes: number;
  };
  'notification.invalid': {
    inboxId: number;
    code?: string | undefined;
    error: string;
  };
  'notification.received': {
    source?: string | undefined;
    inboxId: number;
    bytes?: number | undefined;
    from?: string | undefined;
    until?: string | undefined;
    entries?: number | undefined;
  };
  'notification.superseded': {
    inboxId: number;
    reason: string;
  };
  'ordering.gap_detected': {
    from: string;
    to: string;
  };
  'position.resumed': {
    syncedUntil: string;
  };
  'reconcile.completed': {
    reason: string;
    result: string;
    inSyncBefore: boolean;
    checked: number;
    missing: number;
    extra: number;
    different: number;
    fetched: number;
    removed: number;
    failed: number;
    changedMeanwhile: number;
  };
  'reconcile.failed': {
    reason: string;
    code?: string | undefined;
    error: string;
  };
  'request.rejected': {
    status: number;
    reason: string;
    area?: string | undefined;
  };
  'runner.error': {
    code?: string | undefined;
    error: string;
  };
  'store.checkpoint_failed': {
    file: string;
    error: string;
  };
  'subscriber.listening': {
    url: string;
    port: number;
    sources: string[];
  };
  'subscriber.start_failed': {
    code?: string | undefined;
    message: string;
  };
  'subscriber.stop_failed': {
    code?: string | undefined;
    message: string;
  };
  'subscriber.stopped': Record<never, never>;
  'subscriber.stopping': {
    signal: string;
  };
  'subscription.abandoned': {
    subscriptionId: number;
    why: string;
  };
  'subscription.activation_settled': ActivationSettlingEnd;
  'subscription.activation_unproven': ActivationSettlingEnd;
  'subscription.denied': {
    source: string;
    subscriptionId: number;
    topic: string;
    hub: string;
    reason?: string | undefined;
  };
  'subscription.error': {
    code?: string | undefined;
    error: string;
  };
  'subscription.expired': {
    subscriptionId: number;
  };
  'subscription.hub_unreachable': RefusedSubscribe;
  'subscription.rejected': RefusedSubscribe;
  'subscription.requested': {
    status: number;
    redirectedTo?: string | undefined;
    subscriptionId: number;
    hub: string;
    topic: string;
    reason: string;
    attempt: number;
  };
  'subscription.unsubscribe_requested': {
    subscriptionId: number;
    hub: string;
    topic: string;
    why: string;
    outcome: string;
    status?: number | undefined;
    body?: string | undefined;
    error?: string | undefined;
  };
  'subscription.unsubscribed': {
    source: string;
    subscriptionId: number;
    topic: string;
    hub: string;
    leaseSeconds?: number | undefined;
    leaseExpiresAt?: number | undefined;
  };
  'subscription.verified': {
    source: string;
    subscriptionId: number;
    topic: string;
    hub: string;
    leaseSeconds?: number | undefined;
    leaseExpiresAt?: number | undefined;
  };
  'verification.refused': {
    mode?: string | undefined;
    topic?: string | undefined;
    why: string;
  };
}

export type SubscriberLogEvent = keyof SubscriberLogEvents;

/** The declared events at run time (the README test reads it); the compiler keeps it complete. */
export const SUBSCRIBER_LOG_EVENTS = Object.keys({
  'apply.failed': true,
  'audit.completed': true,
  'baseline.completed': true,
  'baseline.failed': true,
  'baseline.failures_resolved': true,
  'baseline.incomplete': true,
  'baseline.started': true,
  'catchup.completed': true,
  'catchup.failed': true,
  'catchup.history_gone': true,
  'catchup.incomplete': true,
  'catchup.partial': true,
  'catchup.started': true,
  'catchup.up_to_date': true,
  'channel.dropped': true,
  'channel.moved': true,
  'channel.restored': true,
  'delivery.bad_signature': true,
  'delivery.failed': true,
  'delivery.rejected': true,
  'delivery.store_failed': true,
  'delivery.unsigned': true,
  'discovery.completed': true,
  'discovery.failed': true,
  'hook.failed': true,
  'mirror.apply_failed': true,
  'mirror.failures_unlogged': true,
  'mirror.hash_mismatch': true,
  'mirror.layout_migrated': true,
  'mirror.layout_migration_failed': true,
  'mirror.length_mismatch': true,
  'mirror.outdated_change': true,
  'mirror.path_refused': true,
  'mirror.resource_gone': true,
  'mirror.temp_swept': true,
  'notification.applied': true,
  'notification.invalid': true,
  'notification.received': true,
  'notification.superseded': true,
  'ordering.gap_detected': true,
  'position.resumed': true,
  'reconcile.completed': true,
  'reconcile.failed': true,
  'request.rejected': true,
  'runner.error': true,
  'store.checkpoint_failed': true,
  'subscriber.listening': true,
  'subscriber.start_failed': true,
  'subscriber.stop_failed': true,
  'subscriber.stopped': true,
  'subscriber.stopping': true,
  'subscription.abandoned': true,
  'subscription.activation_settled': true,
  'subscription.activation_unproven': true,
  'subscription.denied': true,
  'subscription.error': true,
  'subscription.expired': true,
  'subscription.hub_unreachable': true,
  'subscription.rejected': true,
  'subscription.requested': true,
  'subscription.unsubscribe_requested': true,
  'subscription.unsubscribed': true,
  'subscription.verified': true,
  'verification.refused': true,
} satisfies Record<SubscriberLogEvent, true>) as SubscriberLogEvent[];
