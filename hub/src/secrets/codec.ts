// hub.secret at rest: with a key, every secret a subscriber gives is stored sealed with AES-256-GCM
// (a fresh 96-bit nonce each time), and opened only where a delivery is signed (WH-8, WH-16). Both
// store engines keep the sealed text as an opaque string, so one codec serves SQLite and PostgreSQL.
// Rows written before a key was configured stay plaintext and are still read: only values with the
// SEALED prefix are opened. The key id (a hash of the key) in each value names the key that sealed
// it, so a wrong key file is reported as such instead of failing one delivery at a time.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { RsnotifyError } from '@rsnotify/shared';
import type { HubCodesOf } from '../errors/index.js';

export class SecretKeyError extends RsnotifyError<HubCodesOf<'SecretKeyError'>> {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('RSN_HUB_SECRET_KEY', message, { details });
    this.name = 'SecretKeyError';
  }
}

/** The prefix of a sealed value: `rsn-sealed:v1:<key id>:<nonce>:<ciphertext+tag>` (base64url). */
export const SEALED_PREFIX = 'rsn-sealed:v1:';

export interface SecretCodec {
  /** The key's id, or undefined without a key (secrets stored as given). */
  readonly keyId: string | undefined;
  /** What to store for a secret a subscriber gave. */
  seal(secret: string): string;
  /** The secret itself from what was stored (plaintext rows pass through). */
  open(stored: string): string;
}

export const isSealed = (stored: string): boolean => stored.startsWith(SEALED_PREFIX);

/** The id a key is known by in sealed values and messages (not secret: a hash prefix). */
export function keyIdOf(key: Uint8Array): string {
  return createHash('sha256')
    .update('rsnotify-hub secret key')
    .update(key)
    .digest('hex')
    .slice(0, 12);
}

/** No key configured: secrets are stored as given; a sealed value cannot be opened. */
export const PLAINTEXT_SECRETS: SecretCodec = {
  keyId: undefined,
  seal: (secret) => secret,
  open(stored) {
    if (!isSealed(stored)) return stored;
    throw new SecretKeyError(
      'a stored hub.secret is encrypted, but no secret key is configured (secretKeyFile)',
      { keyId: sealedKeyId(stored) },
    );
  },
};

export function sealedKeyId(stored: string): string | undefined {
  return isSealed(stored) ? stored.slice(SEALED_PREFIX.length).split(':')[0] : undefined;
}

export function aesGcmSecrets(key: Uint8Array): SecretCodec {
  if (key.byteLength !== 32)
    throw new SecretKeyError(`a secret key is 32 bytes, not ${key.byteLength}`);
  const keyId = keyIdOf(key);
  // The key id is authenticated with the value, so a value cannot be moved under another id.
  const aad = Buffer.from(`${SEALED_PREFIX}${keyId}`);
  return {
    keyId,
    seal(secret) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(aad);
      const body = Buffer.concat([
        cipher.update(secret, 'utf8'),
        cipher.final(),
        cipher.getAuthTag(),
      ]);
      return `${SEALED_PREFIX}${keyId}:${nonce.toString('base64url')}:${body.toString('base64url')}`;
    },
    open(stored) {
      if (!isSealed(stored)) return stored;
      const [id, nonce, body] = stored.slice(SEALED_PREFIX.length).split(':');
      if (id !== keyId)
        throw new SecretKeyError(
          `a stored hub.secret was encrypted with key ${id ?? '?'}, but the configured key is ${keyId} (wrong secretKeyFile?)`,
          { keyId, storedKeyId: id },
        );
      try {
        const raw = Buffer.from(body ?? '', 'base64url');
        const decipher = createDecipheriv(
          'aes-256-gcm',
          key,
          Buffer.from(nonce ?? '', 'base64url'),
        );
        decipher.setAAD(aad);
        decipher.setAuthTag(raw.subarray(raw.length - 16));
        return Buffer.concat([
          decipher.update(raw.subarray(0, raw.length - 16)),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        throw new SecretKeyError(
          `a stored hub.secret under key ${keyId} does not decrypt (damaged value)`,
          {
            keyId,
          },
        );
      }
    },
  };
}
