// Publish tokens (RT-5): random, shown once, stored only as a sha256 hash.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function generateToken(): string {
  return `rsn_${randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

// Sources publish many times with the same token; its hash is remembered (bounded) instead of
// recomputed per publish. Holding recently presented tokens in memory is no worse than the request.
const recentHashes = new Map<string, Buffer>();

function hashBytes(token: string): Buffer {
  let h = recentHashes.get(token);
  if (h === undefined) {
    h = Buffer.from(hashToken(token), 'hex');
    if (recentHashes.size >= 256) recentHashes.clear();
    recentHashes.set(token, h);
  }
  return h;
}

/** Constant-time comparison of a presented token with a stored hash. */
export function tokenMatches(token: string, storedHash: string): boolean {
  const a = hashBytes(token);
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token of an `Authorization: Bearer ...` header, or undefined. */
export function bearerToken(header: string | undefined | null): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return m ? m[1] : undefined;
}
