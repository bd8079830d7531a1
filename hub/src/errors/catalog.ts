// Every error code of @rsnotify/hub: the class that carries it (or `outcome` for a code that is a
// delivery or verification outcome rather than a thrown error) and what it means. The code types
// are derived from this table, so a code that is not listed does not compile.
import type { CodesOf, ErrorCatalog } from '@rsnotify/shared';

export const HUB_ERRORS = {
  RSN_HUB_USAGE: { class: 'UsageError', meaning: 'a command line that the CLI cannot run' },
  RSN_STORE_OPEN_FAILED: { class: 'StoreError', meaning: 'the hub database cannot be opened' },
  RSN_SOURCE_EXISTS: { class: 'StoreError', meaning: 'a Source with that name exists already' },
  RSN_PREFIX_TAKEN: {
    class: 'StoreError',
    meaning: 'a topic prefix that another Source owns',
  },
  RSN_ADMIN_TOKEN_EXISTS: {
    class: 'StoreError',
    meaning: 'an admin token with that name exists already',
  },
  RSN_BRIDGE_EXISTS: {
    class: 'StoreError',
    meaning: 'a bridged Source with that name exists already',
  },
  RSN_BRIDGE_POSITION_MOVED: {
    class: 'StoreError',
    meaning: 'a bridge poll committed from a position another poll had already moved on (dropped)',
  },
  RSN_STORE_BAD_URL: {
    class: 'StoreError',
    meaning: '--db is neither a file path nor postgres://',
  },
  RSN_STORE_AUTH_FAILED: {
    class: 'StoreError',
    meaning: 'PostgreSQL refused the user or password',
  },
  RSN_STORE_NO_DATABASE: { class: 'StoreError', meaning: 'the PostgreSQL database does not exist' },
  RSN_STORE_UNREACHABLE: {
    class: 'StoreError',
    meaning: 'the PostgreSQL server cannot be reached',
  },
  RSN_STORE_UNAVAILABLE: {
    class: 'StoreError',
    meaning: 'the database is away for this call (answer 503, retry later)',
  },
  RSN_STORE_MIGRATION_FAILED: { class: 'StoreError', meaning: 'migrating the hub database failed' },
  RSN_SOURCE_BAD_NAME: {
    class: 'TenantError',
    meaning: 'a Source name with characters not allowed',
  },
  RSN_SOURCE_NO_PREFIX: { class: 'TenantError', meaning: 'a Source without any topic prefix' },
  RSN_SOURCE_BAD_PREFIX: {
    class: 'TenantError',
    meaning: 'a topic prefix that is not an absolute http(s) URL',
  },
  RSN_ADMIN_NOT_FOUND: {
    class: 'AdminError',
    meaning: 'no Source or subscription with that name or id',
  },
  RSN_ADMIN_NO_DELIVERY: {
    class: 'AdminError',
    meaning: 'retrying deliveries needs a running hub (the CLI was not given --hub)',
  },
  RSN_ADMIN_BAD_ID: { class: 'AdminError', meaning: 'an admin id parameter that is not a number' },
  RSN_ADMIN_BAD_TOKEN_NAME: {
    class: 'AdminError',
    meaning: 'an admin token name that is not 1-100 letters, digits, ".", "_" or "-"',
  },
  RSN_ADMIN_BAD_POLL: {
    class: 'AdminError',
    meaning:
      'poll settings of a bridged Source that cannot be used (interval, or no bridge on this store)',
  },
  RSN_ADMIN_BAD_FILTER: {
    class: 'outcome',
    meaning: 'an admin API list filter that cannot be read (400)',
  },
  RSN_ADMIN_BAD_JSON: {
    class: 'outcome',
    meaning: 'an admin API request body that is not JSON (400)',
  },
  RSN_ADMIN_BAD_REQUEST: {
    class: 'outcome',
    meaning: 'an admin API request body of the wrong shape (400)',
  },
  RSN_ADMIN_CROSS_SITE: {
    class: 'outcome',
    meaning: 'a cross-site request to the admin console refused (403)',
  },
  RSN_ADMIN_CSRF: {
    class: 'outcome',
    meaning: 'a console form post with a missing or wrong CSRF token (403)',
  },
  RSN_ADMIN_NO_ROUTE: { class: 'outcome', meaning: 'no such admin API route (404)' },
  RSN_ADMIN_TOO_LARGE: { class: 'outcome', meaning: 'an admin request body over 64 KiB (413)' },
  RSN_ADMIN_UNAUTHORIZED: {
    class: 'outcome',
    meaning: 'an admin request without a valid admin token (401)',
  },
  RSN_BRIDGE_BAD_NAME: {
    class: 'BridgeError',
    meaning: 'a bridged Source name with characters not allowed',
  },
  RSN_BRIDGE_BAD_URL: {
    class: 'BridgeError',
    meaning: 'a bridge poll URL that is not an absolute http(s) URL',
  },
  RSN_BRIDGE_BAD_INTERVAL: { class: 'BridgeError', meaning: 'a bridge poll interval under 100 ms' },
  RSN_BRIDGE_NO_CHANGELIST: {
    class: 'BridgeError',
    meaning: 'discovery found no Change List for a bridged Source, or it is gone (404/410)',
  },
  RSN_BRIDGE_NOT_CHANGELIST: {
    class: 'BridgeError',
    meaning: 'a bridged URL answered another status or another kind of document',
  },
  RSN_BRIDGE_HTTP_STATUS: {
    class: 'BridgeHttpError',
    meaning: 'a bridged Source answered a non-2xx status',
  },
  RSN_BRIDGE_TOO_LARGE: {
    class: 'BridgeHttpError',
    meaning: 'a bridged document over the size limit',
  },
  RSN_BRIDGE_REDIRECTS: {
    class: 'BridgeHttpError',
    meaning: 'a bridged URL redirected too many times',
  },
  RSN_HUB_SECRET_KEY: {
    class: 'SecretKeyError',
    meaning:
      'the secret key file is missing, unreadable or malformed, or not the key stored hub.secret values were sealed with',
  },
  RSN_DELIVERY_ERROR: {
    class: 'outcome',
    meaning: 'a delivery attempt failed without a more precise code',
  },
  RSN_NOTIFICATION_MISSING: {
    class: 'outcome',
    meaning: 'a delivery found its notification gone from the store (pruned)',
  },
  RSN_VERIFICATION_ERROR: {
    class: 'outcome',
    meaning: 'a verification request failed without a more precise code',
  },
} as const satisfies ErrorCatalog;

/** Every code of @rsnotify/hub. */
export type HubErrorCode = keyof typeof HUB_ERRORS;
/** The codes that the class named `Cls` may carry. */
export type HubCodesOf<Cls extends string> = CodesOf<typeof HUB_ERRORS, Cls>;
