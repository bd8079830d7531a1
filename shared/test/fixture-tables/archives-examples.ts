// Expectation rows: the examples of the ResourceSync Archives specification (v1.0).
import type { Expectation } from './common.js';

export const ARCHIVES_EXAMPLES: Record<string, Expectation> = {
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
};
