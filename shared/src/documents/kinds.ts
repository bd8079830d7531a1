// Root element + `rs:md/@capability` -> DocumentKind (RC-5, RC-6). An unknown or missing capability
// is a plain sitemap, never an error: discovery also walks ordinary sitemaps (RC-9).
import type { DocumentKind, RootElement } from './model.js';

const BY_CAPABILITY: Readonly<Record<string, readonly [list: DocumentKind, index: DocumentKind]>> =
  {
    description: ['source-description', 'source-description-index'],
    capabilitylist: ['capability-list', 'capability-list-index'],
    resourcelist: ['resource-list', 'resource-list-index'],
    resourcedump: ['resource-dump', 'resource-dump-index'],
    // Manifests and notifications have no index form; a sitemapindex claiming one is just a sitemap index.
    'resourcedump-manifest': ['resource-dump-manifest', 'sitemap-index'],
    changelist: ['change-list', 'change-list-index'],
    changedump: ['change-dump', 'change-dump-index'],
    'changedump-manifest': ['change-dump-manifest', 'sitemap-index'],
    'change-notification': ['change-notification', 'sitemap-index'],
  };

export function documentKind(root: RootElement, capability: string): DocumentKind {
  const pair = Object.hasOwn(BY_CAPABILITY, capability) ? BY_CAPABILITY[capability] : undefined;
  if (pair) return root === 'urlset' ? pair[0] : pair[1];
  // ResourceSync 1.0 Archives: resourcelist-archive, changedump-archive, ...
  if (capability.endsWith('-archive')) return root === 'urlset' ? 'archive' : 'archive-index';
  return root === 'urlset' ? 'sitemap' : 'sitemap-index';
}
