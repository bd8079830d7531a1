// ordering/: the pure contiguity engine (RN-5, M-7). It owns the decisions "apply, drop, buffer or
// catch up" over a `syncedUntil` position and a buffer of notifications; the CONTROL shell owns the
// inbox, persistence and timers and carries out the effects.
export {
  applied,
  catchUpFailed,
  caughtUp,
  currentGap,
  initialOrderingState,
  nextWakeAt,
  rebaselined,
  receive,
  tick,
} from './engine.js';
export type {
  InFlightStep,
  OrderingEffect,
  OrderingOptions,
  OrderingState,
  PendingNotification,
  Transition,
} from './engine.js';
export { NotificationBuffer } from './buffer.js';
