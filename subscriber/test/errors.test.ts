// Every error code of @rsnotify/subscriber, pinned: the catalog lists exactly these codes, each
// class carries the codes the catalog gives it, and a scan of subscriber/src fails on an RSN_ code
// literal that is in neither this package's catalog nor the shared or service-kit one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RsnotifyError, SHARED_ERRORS, describeError } from '@rsnotify/shared';
import { StoreError, SUBSCRIBER_ERRORS, SubscriberError } from '../src/errors/index.js';
import { BaselineError } from '../src/baseline/resource-list.js';
import { CatchUpError } from '../src/catchup/index.js';
import { MirrorError } from '../src/mirror/errors.js';
import { SERVICE_KIT_ERRORS } from '@rsnotify/service-kit';

const PINNED: Record<string, (code: never) => RsnotifyError | 'outcome'> = {
  RSN_BASELINE_HTTP_STATUS: (c) => new BaselineError(c, 'm', {}),
  RSN_BASELINE_NOT_RESOURCELIST: (c) => new BaselineError(c, 'm', {}),
  RSN_BASELINE_NO_AT: (c) => new BaselineError(c, 'm', {}),
  RSN_CATCHUP_HTTP_STATUS: (c) => new CatchUpError(c, 'm', {}),
  RSN_CATCHUP_NOT_CHANGELIST: (c) => new CatchUpError(c, 'm', {}),
  RSN_CATCHUP_TOO_DEEP: (c) => new CatchUpError(c, 'm', {}),
  RSN_CATCHUP_NO_CHANGELIST: (c) => new CatchUpError(c, 'm', {}),
  RSN_PATH_ESCAPE: (c) => new MirrorError(c, 'm'),
  RSN_PATH_UNMAPPABLE: (c) => new MirrorError(c, 'm'),
  RSN_PATH_CONFLICT: (c) => new MirrorError(c, 'm'),
  RSN_HASH_MISMATCH: (c) => new MirrorError(c, 'm'),
  RSN_LENGTH_MISMATCH: (c) => new MirrorError(c, 'm'),
  RSN_HTTP_STATUS: (c) => new MirrorError(c, 'm'),
  RSN_HTTP_TOO_LARGE: (c) => new MirrorError(c, 'm'),
  RSN_FETCH_FAILED: (c) => new MirrorError(c, 'm'),
  RSN_WRITE_FAILED: (c) => new MirrorError(c, 'm'),
  RSN_MIRROR_CLOSED: (c) => new MirrorError(c, 'm'),
  RSN_STORE_CLOSED: (c) => new StoreError(c, 'm'),
  RSN_STORE_OPEN_FAILED: (c) => new StoreError(c, 'm'),
  RSN_STORE_NO_COLUMN: (c) => new StoreError(c, 'm'),
  RSN_STATUS_UNAUTHORIZED: () => 'outcome',
  RSN_STATUS_CROSS_SITE: () => 'outcome',
  RSN_STATUS_LOGIN_TOO_LARGE: () => 'outcome',
  RSN_SOURCE_UNKNOWN: (c) => new SubscriberError(c, 'm'),
  RSN_AUDIT_NO_RESOURCELIST: (c) => new SubscriberError(c, 'm'),
  RSN_SYNC_FAILED: (c) => new SubscriberError(c, 'm'),
  RSN_REPAIR_FAILED: (c) => new SubscriberError(c, 'm'),
  RSN_BRIDGE_LOOKUP_FAILED: (c) => new SubscriberError(c, 'm'),
};

test('the subscriber catalog lists exactly the pinned codes, each with its class and a meaning', () => {
  assert.deepEqual(Object.keys(SUBSCRIBER_ERRORS).sort(), Object.keys(PINNED).sort());
  for (const [code, make] of Object.entries(PINNED)) {
    const entry = SUBSCRIBER_ERRORS[code as keyof typeof SUBSCRIBER_ERRORS];
    assert.ok(entry.meaning.length > 0, code);
    const err = make(code as never);
    if (err === 'outcome') {
      assert.equal(entry.class, 'outcome', code);
      continue;
    }
    assert.ok(err instanceof RsnotifyError, code);
    assert.equal(err.code, code);
    assert.equal(err.name, entry.class, code);
    assert.equal(describeError(err).code, code);
  }
});

test('no RSN_ code literal in subscriber/src is missing from the catalogs', async () => {
  const src = fileURLToPath(new URL('../src/', import.meta.url));
  // The intake also logs the service-kit's body-limit codes (RSN_BODY_*).
  const known = new Set([
    ...Object.keys(SUBSCRIBER_ERRORS),
    ...Object.keys(SHARED_ERRORS),
    ...Object.keys(SERVICE_KIT_ERRORS),
  ]);
  const unknown: string[] = [];
  async function scan(dir: string): Promise<void> {
    for (const name of await readdir(dir)) {
      const p = join(dir, name);
      if ((await stat(p)).isDirectory()) await scan(p);
      else if (name.endsWith('.ts')) {
        for (const m of (await readFile(p, 'utf8')).matchAll(/'(RSN?_[A-Z0-9_]+)'/g)) {
          if (!known.has(m[1]!)) unknown.push(`${p}: ${m[1]}`);
        }
      }
    }
  }
  await scan(src);
  assert.deepEqual(unknown, []);
});
