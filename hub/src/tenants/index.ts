// tenants/: Sources (publishers), their publish tokens (stored as hashes), the topic prefixes they
// own and their subscription policy (callback allow-list).
export { TenantDirectory, TenantError } from './directory.js';
export {
  authorizePublish,
  findOwner,
  subscriptionDenialReason,
  type PublishDecision,
} from './policy.js';
export { bearerToken, generateToken, hashToken, tokenMatches } from './tokens.js';
