// Bridged Sources in the console and the admin API: a Source that only publishes Change Lists,
// polled by the hub's bridge (hub/src/bridge) and published on `{hub}/bridge/NAME`. The admin side
// sees the bridge through this narrow interface (the SQLite store has one; PostgreSQL has none yet).
import { parseDuration, redactText } from '@rsnotify/service-kit';
import { AdminError } from './admin-error.js';

export interface AdminBridgedSource {
  readonly name: string;
  readonly pollUrl: string;
  readonly intervalMs: number;
  readonly topic: string;
  readonly lastPollAt?: number;
  readonly lastError?: string;
}

export interface AdminBridge {
  add(name: string, pollUrl: string, intervalMs: number): Promise<AdminBridgedSource>;
  list(): Promise<AdminBridgedSource[]>;
  remove(name: string): Promise<boolean>;
}

export interface BridgedSourceView {
  readonly name: string;
  readonly pollUrl: string;
  readonly pollIntervalMs: number;
  readonly topic: string;
  readonly lastPollAt?: string;
  readonly lastError?: string;
}

/** The bridge's default poll interval (config DEFAULT_BRIDGE_POLL_INTERVAL_MS). */
export const DEFAULT_POLL_INTERVAL_MS = 30_000;

export function bridgedView(b: AdminBridgedSource): BridgedSourceView {
  return {
    name: b.name,
    pollUrl: b.pollUrl,
    pollIntervalMs: b.intervalMs,
    topic: b.topic,
    ...(b.lastPollAt ? { lastPollAt: new Date(b.lastPollAt).toISOString() } : {}),
    // A poll error may quote a URL with a token in its query: shown redacted.
    ...(b.lastError ? { lastError: redactText(b.lastError) } : {}),
  };
}

/** `30000`, `"30000"`, `"30s"`, `"5m"`, or nothing (the default): milliseconds, or AdminError RSN_ADMIN_BAD_POLL. */
export function pollIntervalMs(raw: number | string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_POLL_INTERVAL_MS;
  let ms: number;
  try {
    ms =
      typeof raw === 'number'
        ? raw
        : /^\d+$/.test(raw.trim())
          ? Number(raw)
          : parseDuration(raw.trim());
  } catch (err) {
    throw new AdminError('RSN_ADMIN_BAD_POLL', `poll interval: ${(err as Error).message}`);
  }
  if (!Number.isInteger(ms) || ms < 100)
    throw new AdminError('RSN_ADMIN_BAD_POLL', 'the poll interval must be at least 100 ms');
  return ms;
}

export function requireBridge(bridge: AdminBridge | undefined): AdminBridge {
  if (!bridge)
    throw new AdminError(
      'RSN_ADMIN_BAD_POLL',
      'bridged Sources (poll settings) need the SQLite store in this version',
    );
  return bridge;
}
