// discovery/: from any URL of a Source to its Capability List (RS §6.3) and on to the
// change-notification channel (WS-1..WS-3). The code lives in @rsnotify/shared (the hub's bridge
// discovers Sources the same way); this module keeps the subscriber's imports where they were.
export {
  chooseHub,
  discoverSource,
  DiscoveryError,
  pageFetcherFrom,
  topicLinks,
  type DiscoveredChannel,
  type Discovery,
  type DiscoveryRoute,
  type DiscoveryStep,
  type FetchedPage,
  type GetLike,
  type PageFetcher,
} from '@rsnotify/shared';
export { bridgeLookupUrl, lookupBridgedChannel, type BridgedChannel } from './bridge-lookup.js';
