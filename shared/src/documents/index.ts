// ResourceSync documents: the model, parseDocument / serializeDocument, the strict notification
// parser the hub and subscriber use, the streaming reader for large lists, and small accessors.
export * from './model.js';
export * from './errors.js';
export { documentKind } from './kinds.js';
export { parseDocument } from './parse.js';
export { serializeDocument } from './serialize.js';
export {
  checkChangeNotificationInSlices,
  parseChangeNotification,
  parseChangeNotificationInSlices,
} from './notification.js';
export { notificationChannels, entryToChange } from './accessors.js';
export { streamDocument, type DocumentHeader, type DocumentStreamEvent } from './stream.js';
