// The domain refusals of the hub: why a service or policy says no, in its own words. Services and
// policies return these; only the HTTP layer (app.ts, REFUSAL_STATUS) turns one into a status code.
export type Refusal =
  /** The request cannot be read as what it claims to be: a bad form, Link header or payload. */
  | 'malformed'
  /** WH-4: a callback the hub will never call (private address, bad scheme). */
  | 'callback-refused'
  /** RT-7: a publish without a bearer token for a topic that needs one. */
  | 'missing-token'
  /** RT-5: the token is not the one of the Source owning the topic. */
  | 'wrong-token'
  /** RT-5: the topic is not a channel of any registered Source. */
  | 'not-owner'
  /** No such thing: a route, a Source, a subscription, a bridged channel. */
  | 'not-found'
  /** The name or topic prefix is taken already (a Source, a bridged Source). */
  | 'conflict'
  /** An admin request without a valid admin token. */
  | 'unauthorized'
  /** A console state change sent from another site, or without its CSRF token. */
  | 'forbidden'
  /** A body over the configured limit. */
  | 'too-large'
  /** M-1: neither a form nor a ResourceSync notification. */
  | 'unsupported-media-type'
  /** A request framing the hub does not implement (a transfer coding other than chunked). */
  | 'not-implemented'
  /** WH-21: a topic the hub had to fetch could not be fetched. */
  | 'topic-unreachable'
  /** Too many unauthenticated bytes in flight, or the database is away: retry later. */
  | 'busy'
  /** The hub is stopping. */
  | 'shutting-down'
  /** This process cannot do it at all (an admin CLI without a running hub): retrying will not help. */
  | 'unavailable';

/** Every refusal, for exhaustive tables. */
export const REFUSALS: readonly Refusal[] = [
  'malformed',
  'callback-refused',
  'missing-token',
  'wrong-token',
  'not-owner',
  'not-found',
  'conflict',
  'unauthorized',
  'forbidden',
  'too-large',
  'unsupported-media-type',
  'not-implemented',
  'topic-unreachable',
  'busy',
  'shutting-down',
  'unavailable',
];
