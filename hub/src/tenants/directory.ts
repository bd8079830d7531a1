// The Sources as the running hub sees them: registration, and a cache that notices changes made by
// another process on the same database (`rsnotify-hub source add` while the hub runs).
import { RsnotifyError } from '@rsnotify/shared';
import type { HubCodesOf } from '../errors/index.js';
import type { HubRepository, SourceRecord } from '../store/index.js';
import { generateToken, hashToken } from './tokens.js';
import { checkHttpUrl, normaliseTopicUrl } from '@rsnotify/shared';

export class TenantError extends RsnotifyError<HubCodesOf<'TenantError'>> {
  constructor(
    code: HubCodesOf<'TenantError'>,
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(code, message, { details });
    this.name = 'TenantError';
  }
}

/** How often the cache asks the database whether another process changed the Sources. */
const CHANGE_CHECK_MS = 200;

export class TenantDirectory {
  private cache: readonly SourceRecord[] | undefined;
  private marker = -1;
  private checkedAt = -Infinity;

  constructor(
    private readonly store: HubRepository,
    private readonly now: () => number = Date.now,
  ) {}

  /** Registers a Source; the token is returned once and only its hash is stored. */
  async addSource(
    name: string,
    topicPrefixes: readonly string[],
    callbackPrefixes: readonly string[] = [],
  ): Promise<{ token: string; source: SourceRecord }> {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(name)) {
      throw new TenantError(
        'RSN_SOURCE_BAD_NAME',
        'a Source name is 1-100 letters, digits, ".", "_" or "-"',
        { name },
      );
    }
    if (topicPrefixes.length === 0)
      throw new TenantError('RSN_SOURCE_NO_PREFIX', 'a Source needs at least one topic prefix', {
        name,
      });
    const prefixes = topicPrefixes.map((p) => normaliseTopicUrl(p));
    for (const p of [...prefixes, ...callbackPrefixes]) {
      const bad = checkHttpUrl(p, 'prefix');
      if (bad) throw new TenantError('RSN_SOURCE_BAD_PREFIX', `${bad}: ${p}`, { prefix: p });
    }
    const token = generateToken();
    const source = await this.store.addSource({
      name,
      tokenHash: hashToken(token),
      topicPrefixes: prefixes,
      callbackPrefixes,
      now: this.now(),
    });
    this.cache = undefined;
    return { token, source };
  }

  async removeSource(name: string): Promise<boolean> {
    const removed = await this.store.removeSource(name);
    this.cache = undefined;
    return removed;
  }

  /** The registered Sources; a `source add/remove` from another process shows within CHANGE_CHECK_MS. */
  async sources(): Promise<readonly SourceRecord[]> {
    const now = this.now();
    if (this.cache !== undefined && now - this.checkedAt < CHANGE_CHECK_MS) return this.cache;
    this.checkedAt = now;
    const marker = this.store.externalChangeMarker();
    if (this.cache === undefined || marker !== this.marker) {
      this.marker = marker;
      this.cache = await this.store.listSources();
    }
    return this.cache;
  }
}
