// Every error code of @rsnotify/subscriber: the class that carries it and what it means. The code
// types of the error classes are derived from this table, so a code that is not listed does not
// compile.
import type { CodesOf, ErrorCatalog } from '@rsnotify/shared';

export const SUBSCRIBER_ERRORS = {
  RSN_BASELINE_HTTP_STATUS: {
    class: 'BaselineError',
    meaning: 'the Resource List answered a non-2xx status',
  },
  RSN_BASELINE_NOT_RESOURCELIST: {
    class: 'BaselineError',
    meaning: 'the baseline document is not a Resource List (or nests too deep)',
  },
  RSN_BASELINE_NO_AT: { class: 'BaselineError', meaning: 'the Resource List has no rs:md/@at' },
  RSN_CATCHUP_HTTP_STATUS: {
    class: 'CatchUpError',
    meaning: 'a Change List or Index answered a non-2xx status',
  },
  RSN_CATCHUP_NOT_CHANGELIST: {
    class: 'CatchUpError',
    meaning: 'a document on the catch-up walk is not a Change List or Change List Index',
  },
  RSN_CATCHUP_TOO_DEEP: { class: 'CatchUpError', meaning: 'Change List Indexes nested too deep' },
  RSN_CATCHUP_NO_CHANGELIST: {
    class: 'CatchUpError',
    meaning: 'a gap must be caught up but the Capability List has no Change List',
  },
  RSN_PATH_ESCAPE: { class: 'MirrorError', meaning: 'a URI whose mapping would leave mirrorDir' },
  RSN_PATH_UNMAPPABLE: { class: 'MirrorError', meaning: 'a URI with no safe file name' },
  RSN_PATH_CONFLICT: {
    class: 'MirrorError',
    meaning: 'a file where a directory is needed, or the other way round',
  },
  RSN_HASH_MISMATCH: { class: 'MirrorError', meaning: 'fetched bytes with another hash' },
  RSN_LENGTH_MISMATCH: { class: 'MirrorError', meaning: 'fetched bytes of another length' },
  RSN_HTTP_STATUS: { class: 'MirrorError', meaning: 'a status not retried (or no longer)' },
  RSN_HTTP_TOO_LARGE: { class: 'MirrorError', meaning: 'a body over the configured limit' },
  RSN_FETCH_FAILED: { class: 'MirrorError', meaning: 'a network error that outlived the retries' },
  RSN_WRITE_FAILED: { class: 'MirrorError', meaning: 'the file system refused a write' },
  RSN_MIRROR_CLOSED: {
    class: 'MirrorError',
    meaning: 'the mirror closed before the change applied',
  },
  RSN_STORE_CLOSED: { class: 'StoreError', meaning: 'a store operation after the store closed' },
  RSN_STORE_OPEN_FAILED: {
    class: 'StoreError',
    meaning: 'the subscriber database cannot be opened',
  },
  RSN_STORE_NO_COLUMN: {
    class: 'StoreError',
    meaning: 'a prepared write names a table property with no column (a programming error)',
  },
  RSN_STATUS_UNAUTHORIZED: {
    class: 'outcome',
    meaning: 'a status page request without the status token or a login session (401)',
  },
  RSN_STATUS_CROSS_SITE: {
    class: 'outcome',
    meaning: 'a status page login or logout sent from another site (403)',
  },
  RSN_STATUS_LOGIN_TOO_LARGE: {
    class: 'outcome',
    meaning: 'a status page login form over 4 KiB (413)',
  },
  RSN_SOURCE_UNKNOWN: {
    class: 'SubscriberError',
    meaning: 'a command names a source that is not in the config',
  },
  RSN_AUDIT_NO_RESOURCELIST: {
    class: 'SubscriberError',
    meaning: 'audit needs a Resource List and the Capability List has none',
  },
  RSN_SYNC_FAILED: {
    class: 'SubscriberError',
    meaning: 'a one-shot sync could not discover the Source or take its baseline',
  },
  RSN_REPAIR_FAILED: {
    class: 'SubscriberError',
    meaning: 'audit --repair could not discover the Source',
  },
  RSN_BRIDGE_LOOKUP_FAILED: {
    class: 'SubscriberError',
    meaning: "a hub's bridge lookup answered neither 404 nor 200 with a hub and a topic",
  },
} as const satisfies ErrorCatalog;

/** Every code of @rsnotify/subscriber. */
export type SubscriberErrorCode = keyof typeof SUBSCRIBER_ERRORS;
/** The codes that the class named `Cls` may carry. */
export type SubscriberCodesOf<Cls extends string> = CodesOf<typeof SUBSCRIBER_ERRORS, Cls>;
