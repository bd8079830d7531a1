// The secret key file: 32 random bytes, base64, one line; created 0600 (never over an existing
// file), refused when group or others may read it.
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { SecretKeyError, aesGcmSecrets, type SecretCodec } from './codec.js';

/** Writes a new key file (mode 0600, exclusive create); returns the key's id. */
export function createSecretKeyFile(path: string): string {
  const key = randomBytes(32);
  try {
    writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new SecretKeyError(
      code === 'EEXIST'
        ? `${path} exists already; a key file is never overwritten (the secrets sealed with it would be lost)`
        : `cannot create the secret key file ${path} (${code ?? String(err)})`,
      { path, errno: code },
    );
  }
  return aesGcmSecrets(key).keyId!;
}

/** Reads a key file into a codec: a clear SecretKeyError for a missing, open or malformed file. */
export function loadSecretKeyFile(path: string): SecretCodec {
  let text: string;
  try {
    const mode = statSync(path).mode;
    if ((mode & 0o077) !== 0)
      throw new SecretKeyError(
        `the secret key file ${path} is readable by group or others (mode ${(mode & 0o777).toString(8)}); chmod 600 it`,
        { path },
      );
    text = readFileSync(path, 'utf8').trim();
  } catch (err) {
    if (err instanceof SecretKeyError) throw err;
    const code = (err as { code?: string }).code;
    throw new SecretKeyError(`cannot read the secret key file ${path} (${code ?? String(err)})`, {
      path,
      errno: code,
    });
  }
  const key = Buffer.from(text, 'base64');
  if (key.length !== 32 || key.toString('base64') !== text)
    throw new SecretKeyError(
      `the secret key file ${path} does not hold a 32-byte base64 key (create one with rsnotify-hub secret-key create)`,
      { path },
    );
  return aesGcmSecrets(key);
}
