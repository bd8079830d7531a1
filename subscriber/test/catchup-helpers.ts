// Shared by the catch-up tests over real HTTP: Change List and Change List Index documents (through
// the test kit's fixture builder), a fake Source serving them, and the simulator captures' folder.
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseDateTime, type DateTime } from '@rsnotify/shared';
import { resourceSyncXml } from '@rsnotify/service-kit/testing';
import { createHttpGetter, type HttpGetter } from '../src/mirror/index.js';
import { startFakeSource, type FakeSource } from './mirror-helpers.js';

export const CAPTURES = fileURLToPath(
  new URL('../../test/fixtures/resourcesync/simulator-captures', import.meta.url),
);
export const d = (s: string): DateTime => parseDateTime(s);
export const T = (sec: number): string => `2026-01-01T00:00:${String(sec).padStart(2, '0')}Z`;

export interface E {
  loc: string;
  change: 'created' | 'updated' | 'deleted';
  datetime?: string;
  lastmod?: string;
}

export function changeList(
  base: string,
  md: { from?: string; until?: string },
  entries: E[],
): string {
  return resourceSyncXml({
    capability: 'changelist',
    md,
    links: [{ rel: 'up', href: `${base}/capabilitylist.xml` }],
    entries: entries.map((e) => ({ ...e, loc: `${base}${e.loc}` })),
  });
}

export function changeListIndex(
  base: string,
  from: string,
  lists: { loc: string; from?: string; until?: string }[],
): string {
  return resourceSyncXml({
    capability: 'changelist',
    root: 'sitemapindex',
    md: { from },
    links: [{ rel: 'up', href: `${base}/capabilitylist.xml` }],
    entries: lists.map((l) => ({
      loc: `${base}${l.loc}`,
      ...(l.from ? { capability: 'changelist', from: l.from } : {}),
      ...(l.from && l.until ? { until: l.until } : {}),
    })),
  });
}

export async function setup(t: TestContext): Promise<{ src: FakeSource; http: HttpGetter }> {
  const src = await startFakeSource();
  const http = createHttpGetter({ allowPrivateNetworks: true });
  t.after(async () => {
    await http.close();
    await src.close();
  });
  return { src, http };
}

export const xml = { 'content-type': 'application/xml' };
export const summary = (changes: { uri: string; change: string }[], base: string): string[] =>
  changes.map((c) => `${c.change} ${c.uri.replace(base, '')}`);
