// observability/: the hub's structured logger (pino, one event per line), its Prometheus metrics
// (one registry per hub instance) and the health check.
export {
  createLogger,
  HUB_LOG_EVENTS,
  type HubLogEvent,
  type HubLogEvents,
  type Logger,
} from './logger.js';
export { HubMetrics, type MetricSources, type DeliveryOutcomeLabel } from './metrics.js';
export { checkHealth, type HealthReport } from './health.js';
