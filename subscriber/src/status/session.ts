// Browser sessions for the status page when a statusToken is set: a person types the token once into
// the login form; the daemon answers with a random session id in an HttpOnly, SameSite=Strict cookie
// (the token itself never goes into a cookie, a URL or a page). Sessions live in memory, hashed, for
// SESSION_TTL_MS; a restart logs everyone out, which is fine for a read-only page.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'rsn_status';
export const SESSION_TTL_MS = 12 * 3_600_000;
/** Logins kept at once; the oldest goes first (a token holder logging in in a loop costs nothing). */
const MAX_SESSIONS = 1_000;

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/** Compares a presented secret with the expected one in constant time (over their hashes). */
export function sameSecret(presented: string, expectedDigest: Buffer): boolean {
  return timingSafeEqual(digest(presented), expectedDigest);
}

export function secretDigest(secret: string): Buffer {
  return digest(secret);
}

export class StatusSessions {
  /** hex sha256 of the session id -> expiry (ms). Insertion order is age order. */
  private readonly sessions = new Map<string, number>();

  constructor(private readonly clock: () => number) {}

  /** A new session; the id goes into the cookie and nowhere else. */
  open(): { id: string; maxAgeSeconds: number } {
    const id = randomBytes(32).toString('base64url');
    const now = this.clock();
    this.sweep(now);
    if (this.sessions.size >= MAX_SESSIONS) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
    this.sessions.set(digest(id).toString('hex'), now + SESSION_TTL_MS);
    return { id, maxAgeSeconds: Math.floor(SESSION_TTL_MS / 1000) };
  }

  valid(id: string | undefined): boolean {
    if (id === undefined || id.length < 20 || id.length > 100) return false;
    const key = digest(id).toString('hex');
    const expires = this.sessions.get(key);
    if (expires === undefined) return false;
    if (expires <= this.clock()) {
      this.sessions.delete(key);
      return false;
    }
    return true;
  }

  close(id: string | undefined): void {
    if (id !== undefined) this.sessions.delete(digest(id).toString('hex'));
  }

  private sweep(now: number): void {
    for (const [key, expires] of this.sessions) if (expires <= now) this.sessions.delete(key);
  }
}
