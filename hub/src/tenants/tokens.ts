// Publish tokens (RT-5): random, shown once, stored only as a sha256 hash.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { RecentAnswers } from '@rsnotify/service-kit';

export function generateToken(): string {
  return `rsn_${randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

// Sources publish many times with the same token; its hash is remembered (bounded) instead of
// recomputed per publish. Holding recently presented tokens in memory is no worse than the request.
const recentHashes = new RecentAnswers((token) => Buffer.from(hashToken(token), 'hex'));

/** Constant-time comparison of a presented token with a stored hash. */
export function tokenMatches(token: string, storedHash: string): boolean {
  const a = recentHashes.get(token);
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token of an `Authorization: Bearer ...` header, or undefined. */
export function bearerToken(header: string | undefined | null): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return m ? m[1] : undefined;
}
