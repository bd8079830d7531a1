// bridge/: the poll-to-push bridge. For Sources that publish Change Lists and no notifications, the
// hub polls once per interval and publishes what is new on a channel it owns, `{hub}/bridge/NAME`.
export { BridgeService, type BridgeDeps, type BridgedSourceView } from './service.js';
export { bridgedTopicUrl, checkBridgeName } from './names.js';
export {
  advance,
  listsToRead,
  splitSegment,
  entryKey,
  type FetchedList,
  type ListRef,
  type PollOutcome,
  type Segment,
} from './coverage.js';
export { buildNotifications } from './notifications.js';
export { nextPollAt, type ScheduleInput } from './schedule.js';
export { SourceGetter, BridgeHttpError, parseRetryAfter } from './http.js';
export { mountBridgeRoutes } from './routes.js';
export { BridgeError, readChangeLists } from './read.js';
