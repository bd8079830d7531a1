// With SQLite, other processes may write the same database file: `rsnotify-hub source add --poll`,
// the admin CLI's --db mode, or another hub process whose console or admin API deleted a
// subscription. SQLite's data_version (store.externalChangeMarker) changes when another connection
// commits; reading it is a cheap pragma, so it is checked every second, and only a change costs a
// look at the store: bridged Sources are refreshed, and subscriptions deleted elsewhere stop being
// driven here (no more deliveries to a callback an operator removed).
import { describeError } from '@rsnotify/shared';
import type { DeliveryScheduler } from './delivery/index.js';
import type { Logger } from './observability/index.js';
import type { HubRepository } from './store/index.js';

export const EXTERNAL_CHANGE_CHECK_MS = 1_000;

export interface ExternalChangeDeps {
  readonly store: HubRepository;
  readonly deliveries: DeliveryScheduler;
  readonly logger: Logger;
  /** Bridged Sources added or removed elsewhere (the bridge reloads its list). */
  readonly refreshBridge?: () => Promise<void>;
  readonly intervalMs?: number;
}

/** Subscriptions driven here whose rows are gone: removed from the scheduler. Returns their ids. */
export async function dropDeletedSubscriptions(
  store: HubRepository,
  deliveries: DeliveryScheduler,
): Promise<number[]> {
  // Driven ids first: each was upserted after its row was committed, so a row missing from the
  // list read afterwards was deleted, never merely not yet written.
  const driven = deliveries.drivenIds();
  const live = new Set((await store.listSubscriptions()).map((s) => s.id));
  const gone = driven.filter((id) => !live.has(id));
  for (const id of gone) deliveries.remove(id);
  return gone;
}

export function watchExternalChanges(d: ExternalChangeDeps): { stop(): void } {
  let seen = d.store.externalChangeMarker();
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    const marker = d.store.externalChangeMarker();
    if (marker === seen) return;
    seen = marker;
    running = true;
    void (async () => {
      try {
        const gone = await dropDeletedSubscriptions(d.store, d.deliveries);
        for (const id of gone)
          d.logger.info(
            { event: 'subscription.removed_elsewhere', subscription: id },
            'subscription deleted by another process: no longer delivered to',
          );
        await d.refreshBridge?.();
      } catch (err) {
        d.logger.error(
          { event: 'store.error', err: describeError(err) },
          'checking changes made by other processes failed',
        );
      } finally {
        running = false;
      }
    })();
  }, d.intervalMs ?? EXTERNAL_CHANGE_CHECK_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
