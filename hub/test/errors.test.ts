// Every error code of @rsnotify/hub, pinned: the catalog lists exactly these codes, each class
// carries the codes the catalog gives it, and a scan of hub/src fails on an RSN_ code literal that
// is in neither this package's catalog nor the shared or service-kit one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RsnotifyError, SHARED_ERRORS, describeError } from '@rsnotify/shared';
import { HUB_ERRORS } from '../src/errors/index.js';
import { UsageError } from '../src/cli.js';
import { StoreError } from '../src/store/sqlite/index.js';
import { TenantError } from '../src/tenants/directory.js';
import { AdminError } from '../src/admin/service.js';
import { BridgeError, BridgeHttpError } from '../src/bridge/index.js';
import { SecretKeyError } from '../src/secrets/index.js';
import { SERVICE_KIT_ERRORS } from '@rsnotify/service-kit';

const PINNED: Record<string, (code: never) => RsnotifyError | 'outcome'> = {
  RSN_HUB_USAGE: () => new UsageError('m'),
  RSN_STORE_OPEN_FAILED: (c) => new StoreError(c, 'm'),
  RSN_SOURCE_EXISTS: (c) => new StoreError(c, 'm'),
  RSN_PREFIX_TAKEN: (c) => new StoreError(c, 'm'),
  RSN_ADMIN_TOKEN_EXISTS: (c) => new StoreError(c, 'm'),
  RSN_BRIDGE_EXISTS: (c) => new StoreError(c, 'm'),
  RSN_BRIDGE_POSITION_MOVED: (c) => new StoreError(c, 'm'),
  RSN_STORE_BAD_URL: (c) => new StoreError(c, 'm'),
  RSN_STORE_AUTH_FAILED: (c) => new StoreError(c, 'm'),
  RSN_STORE_NO_DATABASE: (c) => new StoreError(c, 'm'),
  RSN_STORE_UNREACHABLE: (c) => new StoreError(c, 'm'),
  RSN_STORE_UNAVAILABLE: (c) => new StoreError(c, 'm'),
  RSN_STORE_MIGRATION_FAILED: (c) => new StoreError(c, 'm'),
  RSN_SOURCE_BAD_NAME: (c) => new TenantError(c, 'm'),
  RSN_SOURCE_NO_PREFIX: (c) => new TenantError(c, 'm'),
  RSN_SOURCE_BAD_PREFIX: (c) => new TenantError(c, 'm'),
  RSN_ADMIN_NOT_FOUND: (c) => new AdminError(c, 'm'),
  RSN_ADMIN_BAD_POLL: (c) => new AdminError(c, 'm'),
  RSN_ADMIN_NO_DELIVERY: (c) => new AdminError(c, 'm'),
  RSN_ADMIN_BAD_ID: (c) => new AdminError(c, 'm'),
  RSN_ADMIN_BAD_TOKEN_NAME: (c) => new AdminError(c, 'm'),
  RSN_ADMIN_BAD_FILTER: () => 'outcome',
  RSN_ADMIN_BAD_JSON: () => 'outcome',
  RSN_ADMIN_BAD_REQUEST: () => 'outcome',
  RSN_ADMIN_CROSS_SITE: () => 'outcome',
  RSN_ADMIN_CSRF: () => 'outcome',
  RSN_ADMIN_NO_ROUTE: () => 'outcome',
  RSN_ADMIN_TOO_LARGE: () => 'outcome',
  RSN_ADMIN_UNAUTHORIZED: () => 'outcome',
  RSN_BRIDGE_BAD_NAME: (c) => new BridgeError(c, 'm', {}),
  RSN_BRIDGE_BAD_URL: (c) => new BridgeError(c, 'm', {}),
  RSN_BRIDGE_BAD_INTERVAL: (c) => new BridgeError(c, 'm', {}),
  RSN_BRIDGE_NO_CHANGELIST: (c) => new BridgeError(c, 'm', {}),
  RSN_BRIDGE_NOT_CHANGELIST: (c) => new BridgeError(c, 'm', {}),
  RSN_BRIDGE_HTTP_STATUS: (c) => new BridgeHttpError(c, 'm', 500, undefined, {}),
  RSN_BRIDGE_TOO_LARGE: (c) => new BridgeHttpError(c, 'm', 200, undefined, {}),
  RSN_BRIDGE_REDIRECTS: (c) => new BridgeHttpError(c, 'm', undefined, undefined, {}),
  RSN_HUB_SECRET_KEY: () => new SecretKeyError('m'),
  RSN_DELIVERY_ERROR: () => 'outcome',
  RSN_NOTIFICATION_MISSING: () => 'outcome',
  RSN_VERIFICATION_ERROR: () => 'outcome',
};

test('the hub catalog lists exactly the pinned codes, each with its class and a meaning', () => {
  assert.deepEqual(Object.keys(HUB_ERRORS).sort(), Object.keys(PINNED).sort());
  for (const [code, make] of Object.entries(PINNED)) {
    const entry = HUB_ERRORS[code as keyof typeof HUB_ERRORS];
    assert.ok(entry.meaning.length > 0, code);
    const err = make(code as never);
    if (err === 'outcome') {
      assert.equal(entry.class, 'outcome', code);
      continue;
    }
    assert.ok(err instanceof RsnotifyError, code);
    assert.equal(err.code, code);
    assert.equal(err.name, entry.class, code);
    assert.deepEqual(describeError(err), { code, message: 'm' });
  }
});

test('no RSN_ code literal in hub/src is missing from the catalogs', async () => {
  const src = fileURLToPath(new URL('../src/', import.meta.url));
  // The hub also answers with the service-kit's body-limit codes (RSN_BODY_*).
  const known = new Set([
    ...Object.keys(HUB_ERRORS),
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
