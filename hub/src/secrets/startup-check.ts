// At start: every sealed hub.secret in the store must open with the configured key (or, without a
// key, there must be none), so a wrong or missing key file stops the hub with one clear message
// instead of failing each signed delivery later.
import type { HubRepository } from '../store/index.js';
import { SecretKeyError, isSealed, sealedKeyId, type SecretCodec } from './codec.js';

export async function checkStoredSecrets(store: HubRepository, codec: SecretCodec): Promise<void> {
  const stored = [
    ...(await store.listSubscriptions()).map((s) => s.secret),
    ...(await store.dueIntents(Number.MAX_SAFE_INTEGER, 10_000)).map((i) => i.secret),
  ].filter((s): s is string => s !== undefined && isSealed(s));
  const first = stored[0];
  if (first === undefined) return;
  if (codec.keyId === undefined)
    throw new SecretKeyError(
      `${stored.length} stored hub.secret values are encrypted (key ${sealedKeyId(first)}), but no secret key file is configured: give --secret-key-file / RSNOTIFY_HUB_SECRET_KEY_FILE / secretKeyFile`,
      { storedKeyId: sealedKeyId(first) },
    );
  for (const s of stored) codec.open(s); // throws on the first value another key sealed
}
