// Every file under test/fixtures/resourcesync is accounted for here: each XML document parses into
// the kind, entry count and attributes in the table below (written from the files themselves, with
// Python's ElementTree as an independent reader), each other file is read by the helper it is for
// (Link headers, HTML/robots.txt discovery) or is listed as not a ResourceSync document and checked
// to be refused as one. A new fixture without a row fails the coverage test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DocumentError,
  extractEmbeddedLinks,
  extractRobotsSitemaps,
  formatHashList,
  linksWithRel,
  notificationChannels,
  parseChangeNotification,
  parseDocument,
  parseLinkHeader,
  type CapabilityList,
  type DocumentErrorCode,
} from '@rsnotify/shared';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/resourcesync/', import.meta.url));

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of await readdir(dir)) {
    const p = join(dir, name);
    if ((await stat(p)).isDirectory()) out.push(...(await listFiles(p)));
    else out.push(relative(FIXTURES, p));
  }
  return out.sort();
}

const read = (file: string): Promise<string> => readFile(join(FIXTURES, file), 'utf8');

interface Expectation {
  kind: string;
  entries: number;
  /** Document-level rs:md times, lexical. */
  md?: Record<string, string>;
  /** Document-level rs:ln rels, in order. */
  rels?: string[];
  /** The first entry: loc as written, and rs:md / lastmod values as written. */
  first?: Record<string, string>;
  lastLoc?: string;
}

const DOCUMENTS: Record<string, Expectation> = {
  'notifications/resourcesync_push_test-publish_payload.xml': {
    kind: 'change-list',
    entries: 2,
    md: { from: '2013-01-02T00:00:00Z', until: '2013-01-03T00:00:00Z' },
    first: {
      loc: 'http://example.com/res2.pdf',
      change: 'updated',
      lastmod: '2013-01-02T13:00:00Z',
    },
    lastLoc: 'http://example.com/res3.tiff',
  },
  'notifications/spec-notification-1.0.1_ex1_change-notification.xml': {
    kind: 'change-notification',
    entries: 2,
    md: { from: '2013-01-03T00:00:00Z', until: '2013-01-03T00:10:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res1',
      change: 'created',
      length: '8876',
      datetime: '2013-01-03T00:07:22Z',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      type: 'application/pdf',
      lastmod: '2013-01-01T13:03:00Z',
    },
    lastLoc: 'http://example.com/res2',
  },
  'notifications/spec-notification-1.0.1_ex7_capabilitylist-with-change-notification-channel.xml': {
    kind: 'capability-list',
    entries: 5,
    rels: ['describedby', 'up'],
    first: { loc: 'http://example.com/dataset1/resourcelist.xml', capability: 'resourcelist' },
    lastLoc: 'http://example.com/dataset1/change/',
  },
  'destination-cases/discover/loc1/.well-known/resourcesync': {
    kind: 'source-description',
    entries: 1,
    rels: ['describedby'],
    first: { loc: 'file:///home/publisher/rs/s1/capabilitylist.xml', capability: 'capabilitylist' },
    lastLoc: 'file:///home/publisher/rs/s1/capabilitylist.xml',
  },
  'destination-cases/discover/loc1/capabilitylist.xml': {
    kind: 'capability-list',
    entries: 4,
    rels: ['describedby', 'up'],
    first: {
      loc: 'http://source.example.org/discover/loc1/resourcelist.xml',
      capability: 'resourcelist',
    },
    lastLoc: 'http://source.example.org/discover/loc1/changedump.xml',
  },
  'destination-cases/dump/manifest-absolute-paths.xml': {
    kind: 'resource-dump-manifest',
    entries: 4,
    md: { at: '2016-04-28T14:10:29Z', completed: '2016-04-28T14:10:29Z' },
    first: {
      loc: 'http://source.example.org/dump/files/resource1.txt',
      length: '17',
      hash: 'md5:XIf1jBzGk1xMO5YvVwzQYg==',
      path: '/home/publisher/rs/dump/files/resource1.txt',
      lastmod: '2016-04-04T09:56:38Z',
    },
    lastLoc: 'http://source.example.org/dump/files/subfolder/resource_in_subfolder.txt',
  },
  'destination-cases/dump/manifest.xml': {
    kind: 'resource-dump-manifest',
    entries: 4,
    md: { at: '2016-04-21T10:02:03Z', completed: '2016-04-21T10:02:03Z' },
    first: {
      loc: 'http://source.example.org/dump/files/resource1.txt',
      length: '17',
      hash: 'md5:XIf1jBzGk1xMO5YvVwzQYg==',
      path: 'resource1.txt',
      lastmod: '2016-04-04T09:56:38Z',
    },
    lastLoc: 'http://source.example.org/dump/files/subfolder/resource_in_subfolder.txt',
  },
  'destination-cases/s2/changelist.xml': {
    kind: 'change-list',
    entries: 2,
    first: {
      loc: 'http://source.example.org/s2/files/resource2.txt',
      change: 'updated',
      length: '32',
      hash: 'md5:39bwSE00omeqtp/ViQzY0A==',
      lastmod: '2016-05-01T09:21:17Z',
    },
    lastLoc: 'http://source.example.org/s2/files/added.txt',
  },
  'resync-testdata/archives1/caps1.xml': {
    kind: 'capability-list',
    entries: 8,
    rels: ['describedby', 'up'],
    first: { loc: 'dataset1/resourcelist.xml', capability: 'resourcelist' },
    lastLoc: 'dataset1/changedump-archive.xml',
  },
  'resync-testdata/archives1/caps2.xml': {
    kind: 'capability-list',
    entries: 0,
    rels: ['describedby'],
  },
  'resync-testdata/archives1/dataset1/resourcelist-archive.xml': {
    kind: 'archive',
    entries: 3,
    rels: ['up'],
    first: { loc: 'resourcelist1.xml' },
    lastLoc: 'resourcelist3.xml',
  },
  'resync-testdata/archives1/dataset1/resourcelist.xml': {
    kind: 'resource-list',
    entries: 3,
    rels: ['resourcesync'],
    first: { loc: 'resource1', length: '16', lastmod: '2013-05-28T17:23:34Z' },
    lastLoc: 'resource3',
  },
  'resync-testdata/archives1/dataset1/resourcelist1.xml': {
    kind: 'resource-list',
    entries: 3,
    rels: ['resourcesync'],
    first: { loc: 'resource1', length: '16', lastmod: '2013-05-28T17:23:34Z' },
    lastLoc: 'resource3',
  },
  'resync-testdata/archives1/resourcesync': {
    kind: 'source-description',
    entries: 2,
    rels: ['describedby'],
    first: { loc: 'caps1.xml', capability: 'capabilitylist' },
    lastLoc: 'caps2.xml',
  },
  'resync-testdata/client/dir1/resourcelist.xml': {
    kind: 'resource-list',
    entries: 3,
    rels: ['up'],
    first: { loc: 'http://localhost:9999/dir1/resource1' },
    lastLoc: 'http://localhost:9999/dir1/resource3',
  },
  'resync-testdata/explore1/caps1.xml': {
    kind: 'capability-list',
    entries: 4,
    rels: ['describedby'],
    first: { loc: 'dataset1/resourcelist.xml', capability: 'resourcelist' },
    lastLoc: 'dataset1/changedump.xml',
  },
  'resync-testdata/explore1/caps2.xml': {
    kind: 'capability-list',
    entries: 4,
    rels: ['describedby'],
    first: { loc: 'http://example.com/dataset2/resourcelist.xml', capability: 'resourcelist' },
    lastLoc: 'http://example.com/dataset2/changedump.xml',
  },
  'resync-testdata/explore1/caps3.xml': {
    kind: 'capability-list',
    entries: 4,
    rels: ['describedby'],
    first: { loc: 'dataset3/resourcelist.xml', capability: 'resourcelist' },
    lastLoc: 'dataset3/changedump.xml',
  },
  'resync-testdata/explore1/dataset1/resourcelist.xml': {
    kind: 'resource-list',
    entries: 3,
    rels: ['resourcesync'],
    first: { loc: 'resource1', length: '16', lastmod: '2013-05-28T17:23:34Z' },
    lastLoc: 'resource3',
  },
  'resync-testdata/explore1/resourcesync': {
    kind: 'source-description',
    entries: 3,
    rels: ['describedby'],
    first: { loc: 'caps1.xml' },
    lastLoc: 'caps3.xml',
  },
  'resync-testdata/find/find1/.well-known/resourcelist.xml': {
    kind: 'resource-list',
    entries: 0,
    rels: ['up'],
  },
  'resync-testdata/find/find1/.well-known/resourcesync': {
    kind: 'source-description',
    entries: 1,
    rels: ['describedby'],
    first: { loc: '../data/capabilitylist.xml', capability: 'capabilitylist' },
    lastLoc: '../data/capabilitylist.xml',
  },
  'resync-testdata/find/find1/data/capabilitylist.xml': {
    kind: 'capability-list',
    entries: 1,
    first: { loc: 'resourcelist.xml', capability: 'resourcelist' },
    lastLoc: 'resourcelist.xml',
  },
  'resync-testdata/find/find1/data/resourcelist.xml': {
    kind: 'resource-list',
    entries: 1,
    rels: ['up'],
    first: { loc: 'a_resource', lastmod: '2017-05-28T00:00:00Z' },
    lastLoc: 'a_resource',
  },
  'resync-testdata/find/find2/resourcelist.xml': {
    kind: 'resource-list',
    entries: 1,
    rels: ['up'],
    first: { loc: 'a_resource', lastmod: '2017-05-28T00:00:00Z' },
    lastLoc: 'a_resource',
  },
  'resync-testdata/find/find3/sitemap.xml': {
    kind: 'resource-list',
    entries: 1,
    rels: ['up'],
    first: { loc: 'a_resource', lastmod: '2017-05-28T00:00:00Z' },
    lastLoc: 'a_resource',
  },
  'resync-testdata/sitemapindex1/sitemap.xml': {
    kind: 'sitemap-index',
    entries: 3,
    first: { loc: 'http://localhost:8888/sitemap00000.xml', lastmod: '2012-06-13T18:09:13Z' },
    lastLoc: 'http://localhost:8888/sitemap00002.xml',
  },
  'resync-testdata/sitemapindex1/sitemap00000.xml': {
    kind: 'sitemap',
    entries: 6,
    first: { loc: 'http://localhost:8888/resources/1', lastmod: '2012-06-13T17:13:47+00:00' },
    lastLoc: 'http://localhost:8888/resources/101',
  },
  'resync-testdata/sitemapindex1/sitemap00001.xml': {
    kind: 'sitemap',
    entries: 5,
    first: { loc: 'http://localhost:8888/resources/459', lastmod: '2012-06-13T17:13:47-00:00' },
    lastLoc: 'http://localhost:8888/resources/462',
  },
  'resync-testdata/sitemapindex2/sitemap.xml': {
    kind: 'sitemap-index',
    entries: 3,
    first: {
      loc: 'tests/testdata/sitemapindex2/sitemap00000.xml',
      lastmod: '2012-06-13T18:09:13Z',
    },
    lastLoc: 'tests/testdata/sitemapindex2/sitemap00002.xml',
  },
  'resync-testdata/sitemapindex1/sitemap00002.xml': {
    kind: 'sitemap',
    entries: 6,
    first: { loc: 'http://localhost:8888/resources/821', lastmod: '2012-06-13T17:13:47' },
    lastLoc: 'http://localhost:8888/resources/826',
  },
  'resync-testdata/sitemapindex2/sitemap00000.xml': {
    kind: 'sitemap',
    entries: 6,
    first: { loc: 'http://localhost:8888/resources/1', lastmod: '2012-06-13T17:13:47Z' },
    lastLoc: 'http://localhost:8888/resources/101',
  },
  'resync-testdata/sitemapindex2/sitemap00001.xml': {
    kind: 'sitemap',
    entries: 5,
    first: { loc: 'http://localhost:8888/resources/459', lastmod: '2012-06-13T17:13:47Z' },
    lastLoc: 'http://localhost:8888/resources/462',
  },
  'resync-testdata/sitemapindex2/sitemap00002.xml': {
    kind: 'sitemap',
    entries: 6,
    first: { loc: 'http://localhost:8888/resources/821', lastmod: '2012-06-13T17:13:47Z' },
    lastLoc: 'http://localhost:8888/resources/826',
  },
  'resync-testdata/sitemapindex2/sitemap_mapper.xml': {
    kind: 'sitemap-index',
    entries: 3,
    first: { loc: 'http://localhost/sitemap00000.xml', lastmod: '2012-06-13T18:09:13Z' },
    lastLoc: 'http://localhost/sitemap00002.xml',
  },
  'resync-testdata/unknown/unknown1.xml': {
    kind: 'sitemap',
    entries: 2,
    md: { from: '2013-02-12T14:09:00Z' },
    first: { loc: 'r1', length: '12', lastmod: '2012-03-14T18:37:36Z' },
    lastLoc: 'r2',
  },
  'ruby-resync/changedump-index.xml': {
    kind: 'change-dump-index',
    entries: 3,
    md: { from: '2013-01-01T00:00:00Z' },
    rels: ['up'],
    first: { loc: 'http://example.com/20130101-changedump.xml' },
    lastLoc: 'http://example.com/20130103-changedump.xml',
  },
  'ruby-resync/resourcedump-index.xml': {
    kind: 'resource-dump-index',
    entries: 3,
    md: { at: '2013-01-03T09:00:00Z', completed: '2013-01-03T09:10:00Z' },
    rels: ['up'],
    first: { loc: 'http://example.com/resourcedump1.xml' },
    lastLoc: 'http://example.com/resourcedump3.xml',
  },
  'simulator-captures/sim-v1.0_capabilitylist.xml': {
    kind: 'capability-list',
    entries: 2,
    rels: ['describedby', 'up'],
    first: { loc: 'http://127.0.0.1:8890/resourcelist.xml', capability: 'resourcelist' },
    lastLoc: 'http://127.0.0.1:8890/changelist.xml',
  },
  'simulator-captures/sim-v1.0_changelist.xml': {
    kind: 'change-list',
    entries: 5,
    md: { from: '2026-11-22T02:53:26.157272Z', until: '2026-11-22T02:53:30.974292Z' },
    rels: ['describedby', 'up'],
    first: {
      loc: 'http://127.0.0.1:8890/resources/51',
      change: 'created',
      length: '477',
      hash: 'md5:4062d9fdf843ca65a1ee66404b88c1ee',
      lastmod: '2026-11-22T02:53:26.157272Z',
    },
    lastLoc: 'http://127.0.0.1:8890/resources/52',
  },
  'simulator-captures/sim-v1.0_resourcelist.xml': {
    kind: 'resource-list',
    entries: 49,
    md: { at: '2026-11-22T02:53:30.986320Z' },
    rels: ['describedby', 'up'],
    first: {
      loc: 'http://127.0.0.1:8890/resources/1',
      length: '532',
      hash: 'md5:21ac471cb6e96ca0f36faf8d49d17210',
      lastmod: '2026-11-22T02:53:25.155189Z',
    },
    lastLoc: 'http://127.0.0.1:8890/resources/9',
  },
  'simulator-captures/sim-v1.1-window10_changelist_t1.xml': {
    kind: 'change-list',
    entries: 10,
    md: { from: '2026-11-22T02:53:26.394765Z', until: '2026-11-22T02:53:30.962076Z' },
    rels: ['describedby', 'up'],
    first: {
      loc: 'http://127.0.0.1:8889/resources/70',
      change: 'created',
      length: '709',
      datetime: '2026-11-22T02:53:26.395044Z',
      hash: 'md5:07a6f285a5ddcadac6af5ac7dccc0de4',
      lastmod: '2026-11-22T02:53:26.394765Z',
    },
    lastLoc: 'http://127.0.0.1:8889/resources/74',
  },
  'simulator-captures/sim-v1.1-window10_changelist_t2.xml': {
    kind: 'change-list',
    entries: 10,
    md: { from: '2026-11-22T02:53:31.404967Z', until: '2026-11-22T02:53:36.013931Z' },
    rels: ['describedby', 'up'],
    first: {
      loc: 'http://127.0.0.1:8889/resources/4',
      change: 'updated',
      length: '210',
      datetime: '2026-11-22T02:53:31.405029Z',
      hash: 'md5:9f232be728d3a2bdb07aa2e27bde79a7',
      lastmod: '2026-11-22T02:53:31.404967Z',
    },
    lastLoc: 'http://127.0.0.1:8889/resources/62',
  },
  'simulator-captures/sim-v1.1_capabilitylist.xml': {
    kind: 'capability-list',
    entries: 2,
    rels: ['describedby', 'up'],
    first: { loc: 'http://127.0.0.1:8888/resourcelist.xml', capability: 'resourcelist' },
    lastLoc: 'http://127.0.0.1:8888/changelist.xml',
  },
  'simulator-captures/sim-v1.1_changelist_t1.xml': {
    kind: 'change-list',
    entries: 190,
    md: { from: '2026-11-22T02:50:21.447726Z', until: '2026-11-22T02:53:30.934421Z' },
    rels: ['describedby', 'up'],
    first: {
      loc: 'http://127.0.0.1:8888/resources/4',
      change: 'updated',
      length: '235',
      datetime: '2026-11-22T02:50:21.447820Z',
      hash: 'md5:9066275b089eb6a7c6f9237afc19aa0e',
      lastmod: '2026-11-22T02:50:21.447726Z',
    },
    lastLoc: 'http://127.0.0.1:8888/resources/105',
  },
  'simulator-captures/sim-v1.1_changelist_t2.xml': {
    kind: 'change-list',
    entries: 195,
    md: { from: '2026-11-22T02:50:21.447726Z', until: '2026-11-22T02:53:36.025979Z' },
    rels: ['describedby', 'up'],
    first: {
      loc: 'http://127.0.0.1:8888/resources/4',
      change: 'updated',
      length: '235',
      datetime: '2026-11-22T02:50:21.447820Z',
      hash: 'md5:9066275b089eb6a7c6f9237afc19aa0e',
      lastmod: '2026-11-22T02:50:21.447726Z',
    },
    lastLoc: 'http://127.0.0.1:8888/resources/27',
  },
  'simulator-captures/sim-v1.1_resourcelist.xml': {
    kind: 'resource-list',
    entries: 41,
    md: { at: '2026-11-22T02:53:30.922610Z' },
    rels: ['describedby', 'up'],
    first: {
      loc: 'http://127.0.0.1:8888/resources/10',
      length: '306',
      hash: 'md5:3a1e892ad048207ce674e6775cfcf79d',
      lastmod: '2026-11-22T02:53:02.571845Z',
    },
    lastLoc: 'http://127.0.0.1:8888/resources/99',
  },
  'simulator-captures/sim-v1.1_source-description.xml': {
    kind: 'source-description',
    entries: 1,
    rels: ['describedby'],
    first: { loc: 'http://127.0.0.1:8888/capabilitylist.xml', capability: 'capabilitylist' },
    lastLoc: 'http://127.0.0.1:8888/capabilitylist.xml',
  },
  'spec-examples-v1.0/archives_ex_2_1.xml': {
    kind: 'capability-list',
    entries: 8,
    rels: ['describedby', 'up'],
    first: { loc: 'http://example.com/dataset1/resourcelist.xml', capability: 'resourcelist' },
    lastLoc: 'http://example.com/dataset1/changedump-archive.xml',
  },
  'spec-examples-v1.0/archives_ex_2_2.xml': {
    kind: 'change-list',
    entries: 2,
    md: { from: '2013-01-01T11:00:00Z', until: '2013-01-03T11:00:00Z' },
    rels: ['up', 'archives'],
    first: {
      loc: 'http://example.com/res2.pdf',
      change: 'updated',
      lastmod: '2013-01-02T13:00:00Z',
    },
    lastLoc: 'http://example.com/res3.tiff',
  },
  'spec-examples-v1.0/archives_ex_3_1.xml': {
    kind: 'archive',
    entries: 3,
    rels: ['up'],
    first: { loc: 'http://example.com/resourcelist1.xml' },
    lastLoc: 'http://example.com/resourcelist3.xml',
  },
  'spec-examples-v1.0/archives_ex_3_2.xml': {
    kind: 'archive-index',
    entries: 2,
    rels: ['up'],
    first: { loc: 'http://example.com/resourcelistarchive00001.xml' },
    lastLoc: 'http://example.com/resourcelistarchive00002.xml',
  },
  'spec-examples-v1.0/archives_ex_4_1.xml': {
    kind: 'archive',
    entries: 2,
    rels: ['up'],
    first: { loc: 'http://example.com/resourcedump1.xml', lastmod: '2012-11-03T09:05:42Z' },
    lastLoc: 'http://example.com/resourcedump2.xml',
  },
  'spec-examples-v1.0/archives_ex_5_1.xml': {
    kind: 'archive',
    entries: 3,
    rels: ['up'],
    first: { loc: 'http://example.com/changelist1.xml' },
    lastLoc: 'http://example.com/changelist3.xml',
  },
  'spec-examples-v1.0/archives_ex_6_1.xml': {
    kind: 'archive',
    entries: 2,
    rels: ['up'],
    first: { loc: 'http://example.com/changedump-w1.xml', lastmod: '2012-12-20T09:02:43Z' },
    lastLoc: 'http://example.com/changedump-w2.xml',
  },
  'spec-examples-v1.0/resourcesync_ex_1.xml': {
    kind: 'resource-list',
    entries: 2,
    md: { at: '2013-01-03T09:00:00Z' },
    first: { loc: 'http://example.com/res1' },
    lastLoc: 'http://example.com/res2',
  },
  'spec-examples-v1.0/resourcesync_ex_12.xml': {
    kind: 'source-description',
    entries: 3,
    rels: ['describedby'],
    first: { loc: 'http://example.com/capabilitylist1.xml', capability: 'capabilitylist' },
    lastLoc: 'http://example.com/capabilitylist3.xml',
  },
  'spec-examples-v1.0/resourcesync_ex_13.xml': {
    kind: 'capability-list',
    entries: 4,
    rels: ['describedby', 'up'],
    first: { loc: 'http://example.com/dataset1/resourcelist.xml', capability: 'resourcelist' },
    lastLoc: 'http://example.com/dataset1/changedump.xml',
  },
  'spec-examples-v1.0/resourcesync_ex_14.xml': {
    kind: 'resource-list',
    entries: 2,
    md: { at: '2013-01-03T09:00:00Z', completed: '2013-01-03T09:01:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res1',
      length: '8876',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      type: 'text/html',
      lastmod: '2013-01-02T13:00:00Z',
    },
    lastLoc: 'http://example.com/res2',
  },
  'spec-examples-v1.0/resourcesync_ex_15.xml': {
    kind: 'resource-list-index',
    entries: 3,
    md: { at: '2013-01-03T09:00:00Z', completed: '2013-01-03T09:10:00Z' },
    rels: ['up'],
    first: { loc: 'http://example.com/resourcelist1.xml' },
    lastLoc: 'http://example.com/resourcelist3.xml',
  },
  'spec-examples-v1.0/resourcesync_ex_16.xml': {
    kind: 'resource-list',
    entries: 2,
    md: { at: '2013-01-03T09:00:00Z' },
    rels: ['up', 'index'],
    first: {
      loc: 'http://example.com/res3',
      length: '4385',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c8753',
      type: 'application/pdf',
      lastmod: '2013-01-02T13:00:00Z',
    },
    lastLoc: 'http://example.com/res4',
  },
  'spec-examples-v1.0/resourcesync_ex_17.xml': {
    kind: 'resource-dump',
    entries: 3,
    md: { at: '2013-01-03T09:00:00Z', completed: '2013-01-03T09:04:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/resourcedump-part1.zip',
      length: '4765',
      type: 'application/zip',
    },
    lastLoc: 'http://example.com/resourcedump-part3.zip',
  },
  'spec-examples-v1.0/resourcesync_ex_18.xml': {
    kind: 'resource-dump-manifest',
    entries: 2,
    md: { at: '2013-01-03T09:00:00Z', completed: '2013-01-03T09:02:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res1',
      length: '8876',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      path: '/resources/res1',
      type: 'text/html',
      lastmod: '2013-01-02T13:00:00Z',
    },
    lastLoc: 'http://example.com/res2',
  },
  'spec-examples-v1.0/resourcesync_ex_19.xml': {
    kind: 'change-list',
    entries: 4,
    md: { from: '2013-01-03T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res1.html',
      change: 'created',
      lastmod: '2013-01-03T11:00:00Z',
    },
    lastLoc: 'http://example.com/res2.pdf',
  },
  'spec-examples-v1.0/resourcesync_ex_2.xml': {
    kind: 'resource-list',
    entries: 2,
    md: { at: '2013-01-03T09:00:00Z' },
    first: {
      loc: 'http://example.com/res1',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      lastmod: '2013-01-02T13:00:00Z',
    },
    lastLoc: 'http://example.com/res2',
  },
  'spec-examples-v1.0/resourcesync_ex_20.xml': {
    kind: 'change-list-index',
    entries: 3,
    md: { from: '2013-01-01T00:00:00Z' },
    rels: ['up'],
    first: { loc: 'http://example.com/20130101-changelist.xml' },
    lastLoc: 'http://example.com/20130103-changelist.xml',
  },
  'spec-examples-v1.0/resourcesync_ex_21.xml': {
    kind: 'change-list',
    entries: 4,
    md: { from: '2013-01-02T00:00:00Z', until: '2013-01-03T00:00:00Z' },
    rels: ['up', 'index'],
    first: {
      loc: 'http://example.com/res7.html',
      change: 'created',
      lastmod: '2013-01-02T12:00:00Z',
    },
    lastLoc: 'http://example.com/res7.html',
  },
  'spec-examples-v1.0/resourcesync_ex_22.xml': {
    kind: 'change-dump',
    entries: 3,
    md: { from: '2013-01-01T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/20130101-changedump.zip',
      length: '3109',
      type: 'application/zip',
      lastmod: '2013-01-01T23:59:59Z',
    },
    lastLoc: 'http://example.com/20130103-changedump.zip',
  },
  'spec-examples-v1.0/resourcesync_ex_23.xml': {
    kind: 'change-dump-manifest',
    entries: 4,
    md: { from: '2013-01-02T00:00:00Z', until: '2013-01-03T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res7.html',
      change: 'created',
      length: '4339',
      hash: 'md5:1c1b0e264fa9b7e1e9aa6f9db8d6362b',
      path: '/changes/res7.html',
      type: 'text/html',
      lastmod: '2013-01-02T12:00:00Z',
    },
    lastLoc: 'http://example.com/res7.html',
  },
  'spec-examples-v1.0/resourcesync_ex_24.xml': {
    kind: 'change-list',
    entries: 1,
    md: { from: '2013-01-03T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res1',
      change: 'updated',
      length: '8876',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      type: 'text/html',
      lastmod: '2013-01-03T18:00:00Z',
    },
    lastLoc: 'http://example.com/res1',
  },
  'spec-examples-v1.0/resourcesync_ex_25.xml': {
    kind: 'change-list',
    entries: 1,
    md: { from: '2013-01-03T11:00:00Z' },
    rels: ['up'],
    first: { loc: 'http://example.com/res1', change: 'updated', lastmod: '2013-01-03T18:00:00Z' },
    lastLoc: 'http://example.com/res1',
  },
  'spec-examples-v1.0/resourcesync_ex_26.xml': {
    kind: 'change-list',
    entries: 1,
    md: { from: '2013-01-03T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res1.html',
      change: 'updated',
      length: '8876',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      lastmod: '2013-01-03T18:00:00Z',
    },
    lastLoc: 'http://example.com/res1.html',
  },
  'spec-examples-v1.0/resourcesync_ex_27.xml': {
    kind: 'change-list',
    entries: 2,
    md: { from: '2013-01-03T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res4',
      change: 'updated',
      length: '56778',
      hash: 'sha-256:f4OxZX_x_DFGFDgghgdfb6rtSx-iosjf6735432nklj',
      type: 'application/json',
      lastmod: '2013-01-03T17:00:00Z',
    },
    lastLoc: 'http://example.com/res5-full.tiff',
  },
  'spec-examples-v1.0/resourcesync_ex_28.xml': {
    kind: 'change-list',
    entries: 2,
    md: { from: '2013-01-03T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res2.pdf',
      change: 'updated',
      length: '8876',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      type: 'application/pdf',
      lastmod: '2013-01-03T18:00:00Z',
    },
    lastLoc: 'http://example.com/res2_dublin-core_metadata.xml',
  },
  'spec-examples-v1.0/resourcesync_ex_29.xml': {
    kind: 'change-list',
    entries: 1,
    md: { from: '2013-01-03T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res1',
      change: 'updated',
      length: '8876',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      type: 'text/html',
      lastmod: '2013-01-03T18:00:00Z',
    },
    lastLoc: 'http://example.com/res1',
  },
  'spec-examples-v1.0/resourcesync_ex_3.xml': {
    kind: 'change-list',
    entries: 2,
    md: { from: '2013-01-02T00:00:00Z', until: '2013-01-03T00:00:00Z' },
    first: {
      loc: 'http://example.com/res2.pdf',
      change: 'updated',
      lastmod: '2013-01-02T13:00:00Z',
    },
    lastLoc: 'http://example.com/res3.tiff',
  },
  'spec-examples-v1.0/resourcesync_ex_30.xml': {
    kind: 'change-list',
    entries: 1,
    md: { from: '2013-01-03T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res1',
      change: 'updated',
      length: '8876',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      type: 'text/html',
      lastmod: '2013-01-03T07:00:00Z',
    },
    lastLoc: 'http://example.com/res1',
  },
  'spec-examples-v1.0/resourcesync_ex_31.xml': {
    kind: 'change-list',
    entries: 1,
    md: { from: '2013-01-03T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://original.example.com/res1.html',
      change: 'updated',
      length: '8876',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      type: 'text/html',
      lastmod: '2013-01-03T07:00:00Z',
    },
    lastLoc: 'http://original.example.com/res1.html',
  },
  'spec-examples-v1.0/resourcesync_ex_32.xml': {
    kind: 'change-list',
    entries: 1,
    md: { from: '2013-01-03T11:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://aggregator1.example.com/res1.html',
      change: 'updated',
      length: '8876',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      type: 'text/html',
      lastmod: '2013-01-03T20:00:00Z',
    },
    lastLoc: 'http://aggregator1.example.com/res1.html',
  },
  'spec-examples-v1.0/resourcesync_ex_33.xml': {
    kind: 'change-list',
    entries: 1,
    md: { from: '2013-01-03T12:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://aggregator2.example.com/res1.html',
      change: 'updated',
      length: '8876',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      type: 'text/html',
      lastmod: '2013-01-04T09:00:00Z',
    },
    lastLoc: 'http://aggregator2.example.com/res1.html',
  },
  'spec-examples-v1.0/resourcesync_ex_4.xml': {
    kind: 'resource-dump',
    entries: 1,
    md: { at: '2013-01-03T09:00:00Z' },
    first: { loc: 'http://example.com/resourcedump.zip', lastmod: '2013-01-03T09:00:00Z' },
    lastLoc: 'http://example.com/resourcedump.zip',
  },
  'spec-examples-v1.0/resourcesync_ex_5.xml': {
    kind: 'resource-dump-manifest',
    entries: 2,
    md: { at: '2013-01-03T09:00:00Z' },
    first: {
      loc: 'http://example.com/res1',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      path: '/resources/res1',
      lastmod: '2013-01-03T03:00:00Z',
    },
    lastLoc: 'http://example.com/res2',
  },
  'spec-examples-v1.0/resourcesync_ex_6.xml': {
    kind: 'capability-list',
    entries: 3,
    rels: ['describedby', 'up'],
    first: { loc: 'http://example.com/dataset1/resourcelist.xml', capability: 'resourcelist' },
    lastLoc: 'http://example.com/dataset1/changelist.xml',
  },
  'spec-examples-v1.0/resourcesync_ex_7.xml': {
    kind: 'source-description',
    entries: 1,
    rels: ['describedby'],
    first: { loc: 'http://example.com/dataset1/capabilitylist.xml', capability: 'capabilitylist' },
    lastLoc: 'http://example.com/dataset1/capabilitylist.xml',
  },
  'spec-examples-v1.0/resourcesync_ex_8.xml': {
    kind: 'resource-list-index',
    entries: 2,
    md: { at: '2013-01-03T09:00:00Z' },
    first: { loc: 'http://example.com/resourcelist-part1.xml' },
    lastLoc: 'http://example.com/resourcelist-part2.xml',
  },
  'spec-examples-v1.1/resourcesync_ex_1.xml': {
    kind: 'resource-list',
    entries: 2,
    md: { at: '2013-01-03T09:00:00Z' },
    first: { loc: 'http://example.com/res1' },
    lastLoc: 'http://example.com/res2',
  },
  'spec-examples-v1.1/resourcesync_ex_12.xml': {
    kind: 'source-description',
    entries: 3,
    rels: ['describedby'],
    first: { loc: 'http://example.com/capabilitylist1.xml', capability: 'capabilitylist' },
    lastLoc: 'http://example.com/capabilitylist3.xml',
  },
  'spec-examples-v1.1/resourcesync_ex_13.xml': {
    kind: 'capability-list',
    entries: 4,
    rels: ['describedby', 'up'],
    first: { loc: 'http://example.com/dataset1/resourcelist.xml', capability: 'resourcelist' },
    lastLoc: 'http://example.com/dataset1/changedump.xml',
  },
  'spec-examples-v1.1/resourcesync_ex_14.xml': {
    kind: 'resource-list',
    entries: 2,
    md: { at: '2013-01-03T09:00:00Z', completed: '2013-01-03T09:01:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res1',
      length: '8876',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      type: 'text/html',
      lastmod: '2013-01-02T13:00:00Z',
    },
    lastLoc: 'http://example.com/res2',
  },
  'spec-examples-v1.1/resourcesync_ex_15.xml': {
    kind: 'resource-list-index',
    entries: 3,
    md: { at: '2013-01-03T09:00:00Z', completed: '2013-01-03T09:10:00Z' },
    rels: ['up'],
    first: { loc: 'http://example.com/resourcelist1.xml' },
    lastLoc: 'http://example.com/resourcelist3.xml',
  },
  'spec-examples-v1.1/resourcesync_ex_16.xml': {
    kind: 'resource-list',
    entries: 2,
    md: { at: '2013-01-03T09:00:00Z' },
    rels: ['up', 'index'],
    first: {
      loc: 'http://example.com/res3',
      length: '4385',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c8753',
      type: 'application/pdf',
    },
    lastLoc: 'http://example.com/res4',
  },
  'spec-examples-v1.1/resourcesync_ex_17.xml': {
    kind: 'resource-dump',
    entries: 3,
    md: { at: '2013-01-03T09:00:00Z', completed: '2013-01-03T09:04:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/resourcedump-part1.zip',
      length: '4765',
      type: 'application/zip',
    },
    lastLoc: 'http://example.com/resourcedump-part3.zip',
  },
  'spec-examples-v1.1/resourcesync_ex_18.xml': {
    kind: 'resource-dump-manifest',
    entries: 2,
    md: { at: '2013-01-03T09:00:00Z', completed: '2013-01-03T09:02:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res1',
      length: '8876',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      path: '/resources/res1',
      type: 'text/html',
      lastmod: '2013-01-02T13:00:00Z',
    },
    lastLoc: 'http://example.com/res2',
  },
  'spec-examples-v1.1/resourcesync_ex_19.xml': {
    kind: 'change-list',
    entries: 4,
    md: { from: '2013-01-03T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res1.html',
      change: 'created',
      datetime: '2013-01-03T11:00:00Z',
      lastmod: '2000-01-01T01:01:00Z',
    },
    lastLoc: 'http://example.com/res2.pdf',
  },
  'spec-examples-v1.1/resourcesync_ex_2.xml': {
    kind: 'resource-list',
    entries: 2,
    md: { at: '2013-01-03T09:00:00Z' },
    first: {
      loc: 'http://example.com/res1',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      lastmod: '2013-01-02T13:00:00Z',
    },
    lastLoc: 'http://example.com/res2',
  },
  'spec-examples-v1.1/resourcesync_ex_20.xml': {
    kind: 'change-list-index',
    entries: 3,
    md: { from: '2013-01-01T00:00:00Z' },
    rels: ['up'],
    first: { loc: 'http://example.com/20130101-changelist.xml' },
    lastLoc: 'http://example.com/20130103-changelist.xml',
  },
  'spec-examples-v1.1/resourcesync_ex_21.xml': {
    kind: 'change-list',
    entries: 4,
    md: { from: '2013-01-02T00:00:00Z', until: '2013-01-03T00:00:00Z' },
    rels: ['up', 'index'],
    first: {
      loc: 'http://example.com/res7.html',
      change: 'created',
      datetime: '2013-01-02T12:00:00Z',
    },
    lastLoc: 'http://example.com/res7.html',
  },
  'spec-examples-v1.1/resourcesync_ex_22.xml': {
    kind: 'change-dump',
    entries: 3,
    md: { from: '2013-01-01T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/20130101-changedump.zip',
      length: '3109',
      type: 'application/zip',
      lastmod: '2013-01-01T23:59:59Z',
    },
    lastLoc: 'http://example.com/20130103-changedump.zip',
  },
  'spec-examples-v1.1/resourcesync_ex_23.xml': {
    kind: 'change-dump-manifest',
    entries: 4,
    md: { from: '2013-01-02T00:00:00Z', until: '2013-01-03T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res7.html',
      change: 'created',
      length: '4339',
      datetime: '2013-01-02T12:00:00Z',
      hash: 'md5:1c1b0e264fa9b7e1e9aa6f9db8d6362b',
      path: '/changes/res7.html',
      type: 'text/html',
      lastmod: '2013-01-02T12:00:00Z',
    },
    lastLoc: 'http://example.com/res7.html',
  },
  'spec-examples-v1.1/resourcesync_ex_24.xml': {
    kind: 'change-list',
    entries: 1,
    md: { from: '2013-01-03T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res1',
      change: 'updated',
      length: '8876',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      type: 'text/html',
      lastmod: '2013-01-03T18:00:00Z',
    },
    lastLoc: 'http://example.com/res1',
  },
  'spec-examples-v1.1/resourcesync_ex_25.xml': {
    kind: 'change-list',
    entries: 1,
    md: { from: '2013-01-03T11:00:00Z' },
    rels: ['up'],
    first: { loc: 'http://example.com/res1', change: 'updated', datetime: '2013-01-03T18:00:00Z' },
    lastLoc: 'http://example.com/res1',
  },
  'spec-examples-v1.1/resourcesync_ex_26.xml': {
    kind: 'change-list',
    entries: 1,
    md: { from: '2013-01-03T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res1.html',
      change: 'updated',
      length: '8876',
      datetime: '2013-01-03T18:00:00Z',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
    },
    lastLoc: 'http://example.com/res1.html',
  },
  'spec-examples-v1.1/resourcesync_ex_27.xml': {
    kind: 'change-list',
    entries: 2,
    md: { from: '2013-01-03T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res4',
      change: 'updated',
      length: '56778',
      hash: 'sha-256:f4OxZX_x_DFGFDgghgdfb6rtSx-iosjf6735432nklj',
      type: 'application/json',
    },
    lastLoc: 'http://example.com/res5-full.tiff',
  },
  'spec-examples-v1.1/resourcesync_ex_28.xml': {
    kind: 'change-list',
    entries: 2,
    md: { from: '2013-01-03T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res2.pdf',
      change: 'updated',
      length: '8876',
      datetime: '2013-01-03T18:00:00Z',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      type: 'application/pdf',
    },
    lastLoc: 'http://example.com/res2_dublin-core_metadata.xml',
  },
  'spec-examples-v1.1/resourcesync_ex_29.xml': {
    kind: 'change-list',
    entries: 1,
    md: { from: '2013-01-03T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res1',
      change: 'updated',
      length: '8876',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      type: 'text/html',
      lastmod: '2013-01-03T18:00:00Z',
    },
    lastLoc: 'http://example.com/res1',
  },
  'spec-examples-v1.1/resourcesync_ex_3.xml': {
    kind: 'change-list',
    entries: 3,
    md: { from: '2013-01-02T00:00:00Z', until: '2013-01-03T00:00:00Z' },
    first: {
      loc: 'http://example.com/res1.pdf',
      change: 'updated',
      datetime: '2013-01-02T13:00:00Z',
      lastmod: '2013-01-02T13:00:00Z',
    },
    lastLoc: 'http://example.com/res3.tiff',
  },
  'spec-examples-v1.1/resourcesync_ex_30.xml': {
    kind: 'change-list',
    entries: 1,
    md: { from: '2013-01-03T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res1',
      change: 'updated',
      length: '8876',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      type: 'text/html',
    },
    lastLoc: 'http://example.com/res1',
  },
  'spec-examples-v1.1/resourcesync_ex_31.xml': {
    kind: 'change-list',
    entries: 1,
    md: { from: '2013-01-03T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://original.example.com/res1.html',
      change: 'updated',
      length: '8876',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      type: 'text/html',
      lastmod: '2013-01-03T07:00:00Z',
    },
    lastLoc: 'http://original.example.com/res1.html',
  },
  'spec-examples-v1.1/resourcesync_ex_32.xml': {
    kind: 'change-list',
    entries: 1,
    md: { from: '2013-01-03T11:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://aggregator1.example.com/res1.html',
      change: 'updated',
      length: '8876',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      type: 'text/html',
      lastmod: '2013-01-03T20:00:00Z',
    },
    lastLoc: 'http://aggregator1.example.com/res1.html',
  },
  'spec-examples-v1.1/resourcesync_ex_33.xml': {
    kind: 'change-list',
    entries: 1,
    md: { from: '2013-01-03T12:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://aggregator2.example.com/res1.html',
      change: 'updated',
      length: '8876',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      type: 'text/html',
      lastmod: '2013-01-04T09:00:00Z',
    },
    lastLoc: 'http://aggregator2.example.com/res1.html',
  },
  'spec-examples-v1.1/resourcesync_ex_4.xml': {
    kind: 'resource-dump',
    entries: 1,
    md: { at: '2013-01-03T09:00:00Z' },
    first: { loc: 'http://example.com/resourcedump.zip' },
    lastLoc: 'http://example.com/resourcedump.zip',
  },
  'spec-examples-v1.1/resourcesync_ex_5.xml': {
    kind: 'resource-dump-manifest',
    entries: 2,
    md: { at: '2013-01-03T09:00:00Z' },
    first: {
      loc: 'http://example.com/res1',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      path: '/resources/res1',
    },
    lastLoc: 'http://example.com/res2',
  },
  'spec-examples-v1.1/resourcesync_ex_6.xml': {
    kind: 'capability-list',
    entries: 3,
    rels: ['describedby', 'up'],
    first: { loc: 'http://example.com/dataset1/resourcelist.xml', capability: 'resourcelist' },
    lastLoc: 'http://example.com/dataset1/changelist.xml',
  },
  'spec-examples-v1.1/resourcesync_ex_7.xml': {
    kind: 'source-description',
    entries: 1,
    rels: ['describedby'],
    first: { loc: 'http://example.com/dataset1/capabilitylist.xml', capability: 'capabilitylist' },
    lastLoc: 'http://example.com/dataset1/capabilitylist.xml',
  },
  'spec-examples-v1.1/resourcesync_ex_8.xml': {
    kind: 'resource-list-index',
    entries: 2,
    md: { at: '2013-01-03T09:00:00Z' },
    first: { loc: 'http://example.com/resourcelist-part1.xml' },
    lastLoc: 'http://example.com/resourcelist-part2.xml',
  },
  'validator-2014/capability_list_sitemap.xml': {
    kind: 'capability-list',
    entries: 3,
    rels: ['describedby', 'up'],
    first: { loc: 'http://example.com/dataset1/resourcelist.xml', capability: 'resourcelist' },
    lastLoc: 'http://example.com/dataset1/changelist.xml',
  },
  'validator-2014/capability_list_with_link_to_description_sitemap.xml': {
    kind: 'capability-list',
    entries: 4,
    rels: ['describedby', 'up'],
    first: { loc: 'http://example.com/dataset1/resourcelist.xml', capability: 'resourcelist' },
    lastLoc: 'http://example.com/dataset1/changedump.xml',
  },
  'validator-2014/change_dump_manifest_with_three_entries_sitemap.xml': {
    kind: 'change-dump-manifest',
    entries: 4,
    md: { from: '2013-01-02T00:00:00Z', until: '2013-01-03T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res7.html',
      change: 'created',
      length: '4339',
      hash: 'md5:1c1b0e264fa9b7e1e9aa6f9db8d6362b',
      path: '/changes/res7.html',
      type: 'text/html',
      lastmod: '2013-01-02T12:00:00Z',
    },
    lastLoc: 'http://example.com/res7.html',
  },
  'validator-2014/change_dump_with_three_bitstreams_sitemap.xml': {
    kind: 'change-dump',
    entries: 3,
    md: { from: '2013-01-01T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/20130101-changedump.zip',
      length: '3109',
      type: 'application/zip',
      lastmod: '2013-01-01T23:59:59Z',
    },
    lastLoc: 'http://example.com/20130103-changedump.zip',
  },
  'validator-2014/change_list_describing_four_changes_sitemap.xml': {
    kind: 'change-list',
    entries: 4,
    md: { from: '2013-01-03T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res1.html',
      change: 'created',
      lastmod: '2013-01-03T11:00:00Z',
    },
    lastLoc: 'http://example.com/res2.pdf',
  },
  'validator-2014/change_list_index_with_three_lists_sitemap.xml': {
    kind: 'change-list-index',
    entries: 3,
    md: { from: '2013-01-01T00:00:00Z' },
    rels: ['up'],
    first: { loc: 'http://example.com/20130101-changelist.xml' },
    lastLoc: 'http://example.com/20130103-changelist.xml',
  },
  'validator-2014/change_list_with_from_and_until_attrs_sitemap.xml': {
    kind: 'change-list',
    entries: 4,
    md: { from: '2013-01-02T00:00:00Z', until: '2013-01-03T00:00:00Z' },
    rels: ['up', 'index'],
    first: {
      loc: 'http://example.com/res7.html',
      change: 'created',
      lastmod: '2013-01-02T12:00:00Z',
    },
    lastLoc: 'http://example.com/res7.html',
  },
  'validator-2014/changelist_sitemap.xml': {
    kind: 'change-list',
    entries: 2,
    md: { from: '2013-01-02T00:00:00Z', until: '2013-01-03T00:00:00Z' },
    first: {
      loc: 'http://example.com/res2.pdf',
      change: 'updated',
      lastmod: '2013-01-02T13:00:00Z',
    },
    lastLoc: 'http://example.com/res3.tiff',
  },
  'validator-2014/changelist_with_alt_representations_sitemap.xml': {
    kind: 'change-list',
    entries: 1,
    md: { from: '2013-01-03T11:00:00Z' },
    rels: ['up'],
    first: { loc: 'http://example.com/res1', change: 'updated', lastmod: '2013-01-03T18:00:00Z' },
    lastLoc: 'http://example.com/res1',
  },
  'validator-2014/changelist_with_canonical_sitemap.xml': {
    kind: 'change-list',
    entries: 1,
    md: { from: '2013-01-03T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res1.html',
      change: 'updated',
      length: '8876',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      lastmod: '2013-01-03T18:00:00Z',
    },
    lastLoc: 'http://example.com/res1.html',
  },
  'validator-2014/changelist_with_patch_link_sitemap.xml': {
    kind: 'change-list',
    entries: 2,
    md: { from: '2013-01-03T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res4',
      change: 'updated',
      length: '56778',
      hash: 'sha-256:f4OxZX_x_DFGFDgghgdfb6rtSx-iosjf6735432nklj',
      type: 'application/json',
      lastmod: '2013-01-03T17:00:00Z',
    },
    lastLoc: 'http://example.com/res5-full.tiff',
  },
  'validator-2014/mirrored_content_sitemap.xml': {
    kind: 'change-list',
    entries: 1,
    md: { from: '2013-01-03T00:00:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res1',
      change: 'updated',
      length: '8876',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      type: 'text/html',
      lastmod: '2013-01-03T18:00:00Z',
    },
    lastLoc: 'http://example.com/res1',
  },
  'validator-2014/resource_dump_manifest_with_two_bitstreams_sitemap.xml': {
    kind: 'resource-dump-manifest',
    entries: 2,
    md: { at: '2013-01-03T09:00:00Z', completed: '2013-01-03T09:02:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res1',
      length: '8876',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      path: '/resources/res1',
      type: 'text/html',
      lastmod: '2013-01-02T13:00:00Z',
    },
    lastLoc: 'http://example.com/res2',
  },
  'validator-2014/resource_dump_sitemap.xml': {
    kind: 'resource-dump',
    entries: 1,
    md: { at: '2013-01-03T09:00:00Z' },
    first: { loc: 'http://example.com/resourcedump.zip', lastmod: '2013-01-03T09:00:00Z' },
    lastLoc: 'http://example.com/resourcedump.zip',
  },
  'validator-2014/resource_dump_with_three_files.xml': {
    kind: 'resource-dump',
    entries: 3,
    md: { at: '2013-01-03T09:00:00Z', completed: '2013-01-03T09:04:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/resourcedump-part1.zip',
      length: '4765',
      type: 'application/zip',
    },
    lastLoc: 'http://example.com/resourcedump-part3.zip',
  },
  'validator-2014/resource_list_index_sitemap.xml': {
    kind: 'resource-list-index',
    entries: 2,
    md: { at: '2013-01-03T09:00:00Z' },
    first: { loc: 'http://example.com/resourcelist-part1.xml' },
    lastLoc: 'http://example.com/resourcelist-part2.xml',
  },
  'validator-2014/resource_list_index_with_three_lists.xml': {
    kind: 'resource-list-index',
    entries: 3,
    md: { at: '2013-01-03T09:00:00Z', completed: '2013-01-03T09:10:00Z' },
    rels: ['up'],
    first: { loc: 'http://example.com/resourcelist1.xml' },
    lastLoc: 'http://example.com/resourcelist3.xml',
  },
  'validator-2014/resource_list_sitemap.xml': {
    kind: 'resource-list',
    entries: 2,
    md: { at: '2013-01-03T09:00:00Z' },
    first: { loc: 'http://example.com/res1' },
    lastLoc: 'http://example.com/res2',
  },
  'validator-2014/resource_list_with_addl_information_sitemap.xml': {
    kind: 'resource-list',
    entries: 2,
    md: { at: '2013-01-03T09:00:00Z' },
    first: {
      loc: 'http://example.com/res1',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      lastmod: '2013-01-02T13:00:00Z',
    },
    lastLoc: 'http://example.com/res2',
  },
  'validator-2014/resource_list_with_rel_index_sitemap.xml': {
    kind: 'resource-list',
    entries: 2,
    md: { at: '2013-01-03T09:00:00Z' },
    rels: ['up', 'index'],
    first: {
      loc: 'http://example.com/res3',
      length: '4385',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c8753',
      type: 'application/pdf',
      lastmod: '2013-01-02T13:00:00Z',
    },
    lastLoc: 'http://example.com/res4',
  },
  'validator-2014/resource_list_with_two_resources.xml': {
    kind: 'resource-list',
    entries: 2,
    md: { at: '2013-01-03T09:00:00Z', completed: '2013-01-03T09:01:00Z' },
    rels: ['up'],
    first: {
      loc: 'http://example.com/res1',
      length: '8876',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      type: 'text/html',
      lastmod: '2013-01-02T13:00:00Z',
    },
    lastLoc: 'http://example.com/res2',
  },
  'validator-2014/resourcedump_manifest_sitemap.xml': {
    kind: 'resource-dump-manifest',
    entries: 2,
    md: { at: '2013-01-03T09:00:00Z' },
    first: {
      loc: 'http://example.com/res1',
      hash: 'md5:1584abdf8ebdc9802ac0c6a7402c03b6',
      path: '/resources/res1',
      lastmod: '2013-01-03T03:00:00Z',
    },
    lastLoc: 'http://example.com/res2',
  },
  'validator-2014/source_description_with_capability_list_sitemap.xml': {
    kind: 'source-description',
    entries: 1,
    rels: ['describedby'],
    first: { loc: 'http://example.com/dataset1/capabilitylist.xml', capability: 'capabilitylist' },
    lastLoc: 'http://example.com/dataset1/capabilitylist.xml',
  },
  'validator-2014/source_description_with_three_capability_lists_sitemap.xml': {
    kind: 'source-description',
    entries: 3,
    rels: ['describedby'],
    first: { loc: 'http://example.com/capabilitylist1.xml', capability: 'capabilitylist' },
    lastLoc: 'http://example.com/capabilitylist3.xml',
  },
};

/** XML files refused on purpose, with the code and why. */
const REFUSED: Record<string, { code: DocumentErrorCode; why: string }> = {
  'notifications/resourcesync_push_publisher-template_MALFORMED-leading-newline.xml': {
    code: 'RS_XML_MALFORMED',
    why: 'a newline before <?xml ...?> (fixtures README)',
  },
};

/** Files that are not ResourceSync documents: what parseDocument says, and which helper reads them. */
const NOT_DOCUMENTS: Record<string, { code: DocumentErrorCode; helper: string }> = {
  'LICENSE-Apache-2.0.txt': { code: 'RS_XML_MALFORMED', helper: 'none: licence text' },
  'LICENSES.md': { code: 'RS_XML_MALFORMED', helper: 'none: documentation' },
  'README.md': { code: 'RS_XML_MALFORMED', helper: 'none: documentation' },
  'notifications/spec-notification-1.0.1_ex6_hub-to-destination-POST.http': {
    code: 'RS_XML_MALFORMED',
    helper: 'parseLinkHeader',
  },
  'destination-cases/discover/loc1/page.html': {
    code: 'RS_DOCTYPE_FORBIDDEN',
    helper: 'extractEmbeddedLinks',
  },
  'destination-cases/discover/loc1/corrupt_page.html': {
    code: 'RS_DOCTYPE_FORBIDDEN',
    helper: 'extractEmbeddedLinks',
  },
  'destination-cases/discover/loc1/header_page.html': {
    code: 'RS_DOCTYPE_FORBIDDEN',
    helper: 'extractEmbeddedLinks',
  },
  'destination-cases/discover/loc1/unparsable.html': {
    code: 'RS_XML_MALFORMED',
    helper: 'extractEmbeddedLinks',
  },
  'destination-cases/discover/loc2/robots.txt': {
    code: 'RS_XML_MALFORMED',
    helper: 'extractRobotsSitemaps',
  },
  'schemas/resourcesync.xsd': { code: 'RS_UNKNOWN_ROOT', helper: 'none: XML Schema' },
  'schemas/siteindex.xsd': { code: 'RS_UNKNOWN_ROOT', helper: 'none: XML Schema' },
  'schemas/sitemap.xsd': { code: 'RS_UNKNOWN_ROOT', helper: 'none: XML Schema' },
  'simulator-captures/sim-v1.1_resource-1.body.txt': {
    code: 'RS_UNKNOWN_ROOT',
    helper: 'none: a 404 page body',
  },
  'simulator-captures/sim-v1.1_resource-1.headers.txt': {
    code: 'RS_XML_MALFORMED',
    helper: 'parseLinkHeader (no Link header)',
  },
  'simulator-captures/sim_home.html': {
    code: 'RS_DOCTYPE_FORBIDDEN',
    helper: 'extractEmbeddedLinks',
  },
  'spec-html/resourcesync-1.0.html': {
    code: 'RS_DOCTYPE_FORBIDDEN',
    helper: 'extractEmbeddedLinks',
  },
  'spec-html/resourcesync-1.0.9-draft-of-1.1.html': {
    code: 'RS_DOCTYPE_FORBIDDEN',
    helper: 'extractEmbeddedLinks',
  },
};

test('every fixture file has exactly one row (documents, refused, not documents)', async () => {
  const files = await listFiles(FIXTURES);
  assert.ok(files.length > 100, `found ${files.length} fixture files in ${FIXTURES}`);
  const rows = [
    ...Object.keys(DOCUMENTS),
    ...Object.keys(REFUSED),
    ...Object.keys(NOT_DOCUMENTS),
  ].sort();
  assert.deepEqual(rows, files);
});

test('RC-5, RC-3: every fixture document parses into its kind, entry count and attributes', async () => {
  for (const [file, want] of Object.entries(DOCUMENTS)) {
    const doc = parseDocument(await read(file));
    const at = `${file}`;
    assert.equal(doc.kind, want.kind, at);
    assert.equal(doc.entries.length, want.entries, at);
    for (const [name, value] of Object.entries(want.md ?? {})) {
      assert.equal(
        (doc.md as Record<string, { lexical: string } | undefined>)[name]?.lexical,
        value,
        `${at} rs:md/@${name}`,
      );
    }
    assert.deepEqual(
      doc.links.map((l) => l.rel),
      want.rels ?? [],
      `${at} rs:ln rels`,
    );
    if (want.first) {
      const e = doc.entries[0]!;
      const f = want.first;
      assert.equal(e.loc, f.loc, `${at} first loc`);
      if (f.lastmod !== undefined) assert.equal(e.lastmod?.lexical, f.lastmod, `${at} lastmod`);
      if (f.change !== undefined) assert.equal(e.md?.change, f.change, `${at} change`);
      if (f.capability !== undefined)
        assert.equal(e.md?.capability, f.capability, `${at} capability`);
      if (f.length !== undefined) assert.equal(e.md?.length, Number(f.length), `${at} length`);
      if (f.datetime !== undefined)
        assert.equal(e.md?.datetime?.lexical, f.datetime, `${at} datetime`);
      if (f.hash !== undefined) assert.equal(formatHashList(e.md!.hash!), f.hash, `${at} hash`);
      if (f.type !== undefined) assert.equal(e.md?.type, f.type, `${at} type`);
      if (f.path !== undefined) assert.equal(e.md?.path, f.path, `${at} path`);
    }
    if (want.lastLoc !== undefined)
      assert.equal(doc.entries.at(-1)!.loc, want.lastLoc, `${at} last loc`);
  }
});

test('fixtures refused on purpose fail with their code', async () => {
  for (const [file, { code, why }] of Object.entries(REFUSED)) {
    const text = await read(file);
    assert.throws(
      () => parseDocument(text),
      (e: unknown) => e instanceof DocumentError && e.code === code,
      `${file}: ${why}`,
    );
  }
});

test('RC-8, RC-9, WS-1: files that are not ResourceSync documents are refused as documents', async () => {
  for (const [file, { code, helper }] of Object.entries(NOT_DOCUMENTS)) {
    const text = await read(file);
    assert.throws(
      () => parseDocument(text),
      (e: unknown) => e instanceof DocumentError && e.code === code,
      `${file} (${helper})`,
    );
  }
});

test('RN-1..RN-3: the spec notification passes parseChangeNotification; the pre-1.0 payload does not (RN-2)', async () => {
  const n = parseChangeNotification(
    await read('notifications/spec-notification-1.0.1_ex1_change-notification.xml'),
  );
  assert.equal(n.from.lexical, '2013-01-03T00:00:00Z');
  assert.equal(n.until.lexical, '2013-01-03T00:10:00Z');
  assert.deepEqual(
    n.entries[1]!.md!.hash!.map((h) => h.algorithm),
    ['md5', 'sha-256'],
  );
  const legacy = await read('notifications/resourcesync_push_test-publish_payload.xml');
  assert.throws(
    () => parseChangeNotification(legacy),
    (e: unknown) =>
      e instanceof DocumentError && e.code === 'RS_NOTIFICATION_INVALID' && /RN-2/.test(e.message),
  );
  const malformed = await read(
    'notifications/resourcesync_push_publisher-template_MALFORMED-leading-newline.xml',
  );
  assert.throws(
    () => parseChangeNotification(malformed),
    (e: unknown) => e instanceof DocumentError && e.code === 'RS_XML_MALFORMED',
  );
});

test('RA-1: the Example 7 Capability List advertises one channel with its hub', async () => {
  const doc = parseDocument(
    await read(
      'notifications/spec-notification-1.0.1_ex7_capabilitylist-with-change-notification-channel.xml',
    ),
  );
  assert.deepEqual(notificationChannels(doc as CapabilityList), [
    { topic: 'http://example.com/dataset1/change/', hubs: ['http://hub.example.org/websub'] },
  ]); // Example 7 writes the hub without the trailing slash (digest: known defects)
});

test('RT-4, RT-15: the Example 6 request head carries self, hub and resourcesync in a folded Link header', async () => {
  const head = (
    await read('notifications/spec-notification-1.0.1_ex6_hub-to-destination-POST.http')
  ).split(/\r?\n\r?\n/)[0]!;
  // Unfold obs-fold continuation lines, then collect the Link header values.
  const lines = head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/);
  const linkValues = lines.filter((l) => /^link:/i.test(l)).map((l) => l.slice(l.indexOf(':') + 1));
  const links = parseLinkHeader(linkValues);
  assert.deepEqual(linksWithRel(links, 'self'), ['http://example.com/dataset1/change/']);
  assert.deepEqual(linksWithRel(links, 'hub'), ['http://hub.example.org/websub/']);
  assert.deepEqual(linksWithRel(links, 'resourcesync'), [
    'http://www.example.com/dataset1/capabilitylist.xml',
  ]);
  const simHead = await read('simulator-captures/sim-v1.1_resource-1.headers.txt');
  assert.deepEqual(parseLinkHeader(simHead.split(/\r?\n/).filter((l) => /^link:/i.test(l))), []);
});

test('RC-8, WS-1: HTML discovery finds the resourcesync link only where it is well formed', async () => {
  const base = 'http://source.example.org/discover/loc1/page.html';
  const page = extractEmbeddedLinks(await read('destination-cases/discover/loc1/page.html'), base);
  assert.deepEqual(linksWithRel(page, 'resourcesync'), [
    'http://source.example.org/discover/loc1/capabilitylist.xml',
  ]);
  assert.deepEqual(linksWithRel(page, 'icon'), [
    'http://source.example.org/discover/loc1/favicon.ico',
  ]);
  for (const file of ['corrupt_page.html', 'header_page.html', 'unparsable.html']) {
    assert.deepEqual(
      linksWithRel(
        extractEmbeddedLinks(await read(`destination-cases/discover/loc1/${file}`), base),
        'resourcesync',
      ),
      [],
      file,
    );
  }
  for (const file of [
    'simulator-captures/sim_home.html',
    'spec-html/resourcesync-1.0.html',
    'spec-html/resourcesync-1.0.9-draft-of-1.1.html',
  ]) {
    const links = extractEmbeddedLinks(await read(file), 'http://127.0.0.1:8888/');
    assert.equal(linksWithRel(links, 'resourcesync').length, 0, file);
    assert.ok(linksWithRel(links, 'stylesheet').length === 1, `${file} has its stylesheet link`);
  }
});

test('RC-9: robots.txt gives both Sitemap lines', async () => {
  assert.deepEqual(
    extractRobotsSitemaps(
      await read('destination-cases/discover/loc2/robots.txt'),
      'http://source.example.org/robots.txt',
    ),
    [
      'http://source.example.org/discover/loc2/dataset1/resourcelist.xml',
      'http://example.com/dataset1/resourcelist2.xml',
    ],
  );
});

test('fixtures README quirks: relative loc resolves against the document URL', async () => {
  const doc = parseDocument(await read('resync-testdata/find/find1/.well-known/resourcesync'), {
    baseUrl: 'http://example.org/find1/.well-known/resourcesync',
  });
  assert.equal(doc.entries[0]!.loc, 'http://example.org/find1/data/capabilitylist.xml');
  const archive = parseDocument(
    await read('resync-testdata/archives1/dataset1/resourcelist-archive.xml'),
    { baseUrl: 'http://example.org/archives1/dataset1/resourcelist-archive.xml' },
  );
  assert.equal(archive.links[0]!.href, 'http://example.org/archives1/dataset1/capabilitylist.xml');
  assert.deepEqual(
    archive.entries.map((e) => e.loc.split('/').pop()),
    ['resourcelist1.xml', 'resourcelist2.xml', 'resourcelist3.xml'],
  );
});

test('fixtures README quirks: base64 MD5, non-spec rs:md attributes, deletes without any time, 6-digit fractions', async () => {
  const s2 = parseDocument(await read('destination-cases/s2/changelist.xml'));
  const md5 = s2.entries[0]!.md!.hash!.find((h) => h.algorithm === 'md5')!;
  assert.match(md5.value, /=$/, 'written as base64');
  assert.match(md5.hex!, /^[0-9a-f]{32}$/, 'decoded to hex');
  assert.equal(s2.md.from, undefined, 'missing from is tolerated by parseDocument');
  const caps = parseDocument(await read('resync-testdata/archives1/caps1.xml'));
  assert.deepEqual(
    caps.md.extra,
    { modified: '2013-11-27T14:00:00Z' },
    'rs:md modified kept in extra',
  );
  const description = parseDocument(await read('resync-testdata/archives1/resourcesync'));
  assert.deepEqual(
    description.md.extra,
    { modified: '2013-11-27' },
    'date-only value kept as written',
  );
  const v10 = parseDocument(await read('simulator-captures/sim-v1.0_changelist.xml'));
  const del = v10.entries.find((e) => e.md?.change === 'deleted')!;
  assert.equal(del.lastmod, undefined);
  assert.equal(del.md!.datetime, undefined);
  const v11 = parseDocument(await read('simulator-captures/sim-v1.1_changelist_t1.xml'));
  assert.equal(v11.entries[0]!.md!.datetime!.precision, 'fraction');
  assert.match(v11.entries[0]!.md!.datetime!.lexical, /\.\d{6}Z$/);
});
