// What the scheduler needs of the store: its port, so it runs over either engine and, in unit tests,
// over an in-memory one.
import type { HubRepository } from '../store/index.js';

export type DeliveryStore = Pick<
  HubRepository,
  'listTopics' | 'listSubscriptions' | 'getNotification' | 'saveCursors' | 'removeSubscriptionById'
>;
