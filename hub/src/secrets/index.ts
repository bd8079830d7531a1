// secrets/: hub.secret at rest (sealed with a key file's AES-256-GCM key) and the key file itself.
export {
  PLAINTEXT_SECRETS,
  SEALED_PREFIX,
  SecretKeyError,
  aesGcmSecrets,
  isSealed,
  keyIdOf,
  type SecretCodec,
} from './codec.js';
export { createSecretKeyFile, loadSecretKeyFile } from './key-file.js';
export { checkStoredSecrets } from './startup-check.js';
export { registerSecretKeyCommands } from './cli.js';
