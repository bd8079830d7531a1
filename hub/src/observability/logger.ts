// The hub's logger: the shared factory and message policy of @rsnotify/service-kit, typed with the
// hub's declared events (log-events.ts).
import type { DestinationStream } from 'pino';
import { createEventLogger, type EventLogger } from '@rsnotify/service-kit';
import type { HubLogEvents } from './log-events.js';

export type Logger = EventLogger<HubLogEvents>;
export { HUB_LOG_EVENTS, type HubLogEvent, type HubLogEvents } from './log-events.js';

export function createLogger(level = 'info', destination?: DestinationStream): Logger {
  return createEventLogger<HubLogEvents>({ service: 'rsnotify-hub', level, destination });
}
