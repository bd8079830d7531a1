// Shared by the catch-up tests over real HTTP: Change List and Change List Index documents written
// inline, a fake Source serving them, and the simulator captures' folder.
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseDateTime, type DateTime } from '@rsnotify/shared';
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
  const urls = entries
    .map(
      (e) =>
        `<url><loc>${base}${e.loc}</loc>${e.lastmod ? `<lastmod>${e.lastmod}</lastmod>` : ''}` +
        `<rs:md change="${e.change}"${e.datetime ? ` datetime="${e.datetime}"` : ''}/></url>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="${base}/capabilitylist.xml"/>
<rs:md capability="changelist"${md.from ? ` from="${md.from}"` : ''}${md.until ? ` until="${md.until}"` : ''}/>
${urls}
</urlset>`;
}

export function changeListIndex(
  base: string,
  from: string,
  lists: { loc: string; from?: string; until?: string }[],
): string {
  const maps = lists
    .map(
      (l) =>
        `<sitemap><loc>${base}${l.loc}</loc>${l.from ? `<rs:md capability="changelist" from="${l.from}"${l.until ? ` until="${l.until}"` : ''}/>` : ''}</sitemap>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="${base}/capabilitylist.xml"/>
<rs:md capability="changelist" from="${from}"/>
${maps}
</sitemapindex>`;
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
