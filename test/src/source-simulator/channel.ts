// The `dropChannel` switch: a Source that stops advertising its change-notification channel (its
// Capability List loses the entry, the topic loses its rel="hub" link) and stops posting
// notifications; its changes still reach the Change Lists. Switching it back restores the channel.
import type { Faults } from './faults.js';

/** The hub the Source advertises and posts to, or undefined while the channel is dropped. */
export function advertisedHub<T>(faults: Readonly<Faults>, hub: T | undefined): T | undefined {
  return faults.dropChannel > 0 ? undefined : hub;
}
